/**
 * The structural repairs, run only when the fast check found a broken rule: consecutive
 * messages of one role are sent as one (tool results first), except after an assistant
 * message with tool calls, which get a user message of their own; the request starts and ends
 * with a user message (or the block of a compaction on demand); repeated tool_use ids are renamed (their result with them); every tool_use
 * is answered in the very next message (an "interrupted" error result when it is not); a
 * tool_result whose tool_use is not in the message just before becomes text; an empty message
 * gets a placeholder.
 *
 * Every block and message it makes is memoised on the block or message it stands for, so the
 * same input gives the same objects turn after turn: the serializer's per-Message memo and the
 * estimator's anchored prefix (a pointer comparison per message) keep working on a repaired
 * conversation. Cost O(blocks).
 */
import type { Block, Message, Role, TextBlock, ToolResultBlock, ToolUseBlock } from '../conversation/conversationModel';
import { derivedMeta, resultText, scanMessage, textFor } from './blocks';
import { opensWithOnDemandSummary } from '../conversation/assistant';
import type { Repair } from './repairs';

/** Content of the result given to a tool call that has none. */
export const INTERRUPTED_RESULT = 'The tool call was interrupted: it never returned a result.';
/** Text of the user message put before a conversation that starts with the assistant. */
export const START_PLACEHOLDER = '(The conversation continues from earlier messages that are not included.)';
/** Text of the user message appended when the request would end with the assistant. */
export const CONTINUE_PLACEHOLDER = 'Continue.';
/** Text standing in for a message with no content left. */
export const EMPTY_PLACEHOLDER = '(no content)';

/** One message of the output: consecutive source messages of one role, or a message normalize adds. */
interface Group {
  readonly role: Role;
  /** The messages it sends (empty for an added message). */
  readonly sources: Message[];
  /** The message its id, turn and memo come from (for an added message: the one it is added for). */
  readonly key: Message;
  /** Why normalize added it: before a leading assistant message, between two assistant messages, after a final one. */
  readonly added?: 'start' | 'between' | 'end';
  blocks: Block[];
}

/** What the last assistant message called, for the user message after it. */
interface Calls {
  readonly uses: ToolUseBlock[];
  /** Original id → the ids it was sent as, in order (a repeated id maps to several). */
  readonly queue: Map<string, string[]>;
}

const outputs = new WeakMap<Message, Message>();
const added = {
  start: new WeakMap<Message, Message>(),
  between: new WeakMap<Message, Message>(),
  end: new WeakMap<Message, Message>(),
};
const placeholders = {
  start: new WeakMap<Message, TextBlock>(),
  end: new WeakMap<Message, TextBlock>(),
  empty: new WeakMap<Message, TextBlock>(),
};
const renamedUses = new WeakMap<ToolUseBlock, ToolUseBlock>();
const renamedResults = new WeakMap<ToolResultBlock, ToolResultBlock>();
const interrupted = new WeakMap<ToolUseBlock, ToolResultBlock>();
const orphans = new WeakMap<ToolResultBlock, { readonly heading: string; readonly blocks: readonly Block[] }>();
let emptyConversation: Message | undefined;

/** `messages` repaired into a sequence the API accepts; each repair appended to `repairs`. */
export function repairStructure(messages: readonly Message[], repairs: Repair[]): Message[] {
  if (messages.length === 0) {
    repairs.push({
      kind: 'first_not_user',
      detail: 'The request had no messages; a placeholder user message was sent.',
    });
    emptyConversation ??= {
      id: 'msg_normalize_start',
      role: 'user',
      turn: 0,
      blocks: [{ type: 'text', text: START_PLACEHOLDER, meta: placeholderMeta('blk_normalize_start') }],
    };
    return [emptyConversation];
  }
  const groups = groupMessages(messages, repairs);
  const taken = new Set<string>();
  for (const m of messages) {
    const scan = scanMessage(m);
    for (const id of scan.uses) taken.add(id);
    for (const id of scan.results) taken.add(id);
  }
  const seen = new Set<string>();
  let calls: Calls | undefined;
  for (const g of groups) {
    if (g.role === 'assistant') calls = renameRepeatedCalls(g, seen, taken, repairs);
    else {
      answerCalls(g, calls, repairs);
      calls = undefined;
    }
  }
  return groups.map((g) => toMessage(g, repairs));
}

/**
 * Consecutive user messages become one; consecutive assistant messages too, unless the first
 * makes tool calls (they are answered in a user message put between the two). A user message
 * is put before a leading assistant message and after a final one.
 */
function groupMessages(messages: readonly Message[], repairs: Repair[]): Group[] {
  const groups: Group[] = [];
  for (const m of messages) {
    const scan = scanMessage(m);
    repairs.push(...scan.repairs);
    const prev = groups[groups.length - 1];
    if (!prev && m.role === 'assistant' && !opensWithOnDemandSummary(m)) {
      repairs.push({
        kind: 'first_not_user',
        messageId: m.id,
        detail: `The conversation started with assistant message ${m.id}; a placeholder user message was put before it.`,
      });
      groups.push({
        role: 'user',
        sources: [],
        key: m,
        added: 'start',
        blocks: [placeholder('start', m, START_PLACEHOLDER)],
      });
    } else if (prev?.role === m.role && (m.role === 'user' || !prev.blocks.some((b) => b.type === 'tool_use'))) {
      prev.sources.push(m);
      prev.blocks.push(...scan.blocks);
      continue;
    } else if (prev?.role === m.role) {
      groups.push({ role: 'user', sources: [], key: m, added: 'between', blocks: [] });
    }
    groups.push({ role: m.role, sources: [m], key: m, blocks: [...scan.blocks] });
  }
  for (const g of groups) {
    if (g.sources.length < 2) continue;
    repairs.push({
      kind: 'messages_merged',
      messageId: g.key.id,
      detail: `Messages ${g.sources.map((s) => s.id).join(', ')} were consecutive ${g.role} messages; they were sent as one.`,
    });
  }
  const last = groups[groups.length - 1] as Group;
  if (last.role === 'assistant')
    groups.push({
      role: 'user',
      sources: [],
      key: last.sources[last.sources.length - 1] as Message,
      added: 'end',
      blocks: [],
    });
  return groups;
}

function renameRepeatedCalls(g: Group, seen: Set<string>, taken: Set<string>, repairs: Repair[]): Calls {
  const uses: ToolUseBlock[] = [];
  const queue = new Map<string, string[]>();
  g.blocks = g.blocks.map((b) => {
    if (b.type !== 'tool_use') return b;
    let u = b;
    if (seen.has(b.id)) {
      u = renamedUse(b, fresh(b.id, taken));
      repairs.push({
        kind: 'tool_use_id_duplicate',
        messageId: sourceOf(g, b).id,
        blockId: b.meta.id,
        detail: `The tool call id ${b.id} was already used; this call was sent as ${u.id}.`,
      });
    }
    seen.add(u.id);
    uses.push(u);
    queue.set(b.id, [...(queue.get(b.id) ?? []), u.id]);
    return u;
  });
  return { uses, queue };
}

function answerCalls(g: Group, calls: Calls | undefined, repairs: Repair[]): void {
  const results: Block[] = [];
  const rest: Block[] = [];
  const answered = new Set<string>();
  let moved = false;
  for (const b of g.blocks) {
    if (b.type !== 'tool_result') {
      rest.push(b);
      continue;
    }
    const id = calls?.queue.get(b.toolUseId)?.shift();
    if (id === undefined) {
      const duplicate = calls?.queue.has(b.toolUseId) === true;
      rest.push(...orphanBlocks(b, duplicate));
      repairs.push({
        kind: duplicate ? 'tool_result_duplicate' : 'tool_result_orphan',
        messageId: sourceOf(g, b).id,
        blockId: b.meta.id,
        detail: duplicate
          ? `A second result for the tool call ${b.toolUseId} was sent as text.`
          : `The result for ${b.toolUseId}, whose call is not in the message before, was sent as text.`,
      });
      continue;
    }
    if (rest.length > 0) moved = true;
    results.push(id === b.toolUseId ? b : renamedResult(b, id));
    answered.add(id);
  }
  for (const u of calls?.uses ?? []) {
    if (answered.has(u.id)) continue;
    const r = interruptedResult(u);
    results.push(r);
    repairs.push({
      kind: 'tool_use_interrupted',
      messageId: g.key.id,
      blockId: r.meta.id,
      detail: `The tool call ${u.name} (${u.id}) had no result; one saying it was interrupted was sent.`,
    });
  }
  if (moved)
    repairs.push({
      kind: 'tool_result_moved',
      messageId: g.key.id,
      detail: `Tool results of message ${g.key.id} were moved before its other content.`,
    });
  g.blocks = results.length === 0 ? rest : [...results, ...rest];
}

/** The source message a block of group `g` came from (for the repair's messageId). */
function sourceOf(g: Group, b: Block): Message {
  if (g.sources.length <= 1) return g.key;
  return g.sources.find((m) => m.blocks.some((x) => x.meta.id === b.meta.id)) ?? g.key;
}

/** A tool call id not used anywhere in the conversation: `<id>_2`, `<id>_3`… */
function fresh(base: string, taken: Set<string>): string {
  let id = `${base}_2`;
  for (let n = 3; taken.has(id); n++) id = `${base}_${n}`;
  taken.add(id);
  return id;
}

function renamedUse(b: ToolUseBlock, id: string): ToolUseBlock {
  const hit = renamedUses.get(b);
  if (hit?.id === id) return hit;
  const u: ToolUseBlock = { ...b, id, meta: derivedMeta(b.meta, id) };
  renamedUses.set(b, u);
  return u;
}

function renamedResult(b: ToolResultBlock, id: string): ToolResultBlock {
  const hit = renamedResults.get(b);
  if (hit?.toolUseId === id) return hit;
  const r: ToolResultBlock = { ...b, toolUseId: id, meta: derivedMeta(b.meta, id) };
  renamedResults.set(b, r);
  return r;
}

/**
 * The error result that answers a tool call which never got one: block id `id`, text
 * `content`, dated like the call. Shared by normalize (request only) and the session repair
 * (saved), which say different things about the interruption.
 */
export function interruptedToolResult(u: ToolUseBlock, id: string, content: string): ToolResultBlock {
  return {
    type: 'tool_result',
    toolUseId: u.id,
    content,
    isError: true,
    meta: {
      id,
      tier: 3,
      source: 'tool',
      createdAt: u.meta.createdAt,
      toolUseId: u.id,
      pinned: false,
      compactable: true,
    },
  };
}

function interruptedResult(u: ToolUseBlock): ToolResultBlock {
  const hit = interrupted.get(u);
  if (hit?.toolUseId === u.id) return hit;
  const r = interruptedToolResult(u, `${u.meta.id}_interrupted`, INTERRUPTED_RESULT);
  interrupted.set(u, r);
  return r;
}

/** A tool_result that answers nothing, as text (its images kept after it). */
function orphanBlocks(b: ToolResultBlock, duplicate: boolean): readonly Block[] {
  const heading = duplicate
    ? `[A second result of the tool call ${b.toolUseId}, which was already answered${b.isError ? ' (an error)' : ''}]`
    : `[Result of an earlier tool call ${b.toolUseId}, whose call is no longer in the history${b.isError ? ' (an error)' : ''}]`;
  const hit = orphans.get(b);
  if (hit?.heading === heading) return hit.blocks;
  const text = resultText(typeof b.content === 'string' ? b.content : b.content.filter((p) => p.type === 'text'));
  const blocks: Block[] = [textFor(b.meta, text.trim() ? `${heading}\n${text}` : heading)];
  if (typeof b.content !== 'string') {
    b.content.forEach((p, i) => {
      if (p.type === 'image')
        blocks.push({
          type: 'image',
          mediaType: p.mediaType,
          data: p.data,
          meta: { ...derivedMeta(b.meta), id: `${b.meta.id}_image${i}` },
        });
    });
  }
  orphans.set(b, { heading, blocks });
  return blocks;
}

function toMessage(g: Group, repairs: Repair[]): Message {
  const key = g.key;
  if (g.blocks.length === 0 && g.added === 'end') {
    repairs.push({
      kind: 'ends_with_assistant',
      messageId: key.id,
      detail: `The request ended with assistant message ${key.id} (Claude 4.6 models refuse a final assistant message); a user message asking to continue was appended.`,
    });
    g.blocks = [placeholder('end', key, CONTINUE_PLACEHOLDER)];
  } else if (g.blocks.length === 0) {
    repairs.push({
      kind: 'empty_message',
      messageId: key.id,
      detail: `Message ${key.id} had no content left; a placeholder was sent.`,
    });
    g.blocks = [placeholder('empty', key, EMPTY_PLACEHOLDER)];
  }
  if (g.added)
    return stable(added[g.added], key, {
      id: `${key.id}_${g.added === 'start' ? 'start' : g.added === 'between' ? 'before' : 'next'}`,
      role: 'user',
      turn: key.turn,
      blocks: g.blocks,
    });
  if (sameBlocks(key.blocks, g.blocks)) return key;
  return stable(outputs, key, { id: key.id, role: g.role, turn: key.turn, blocks: g.blocks });
}

/** The placeholder text block of `kind` for message `key` (memoised). */
function placeholder(kind: keyof typeof placeholders, key: Message, text: string): TextBlock {
  let p = placeholders[kind].get(key);
  if (!p) {
    p = { type: 'text', text, meta: placeholderMeta(`${key.id}_${kind}_text`) };
    placeholders[kind].set(key, p);
  }
  return p;
}

function placeholderMeta(id: string): TextBlock['meta'] {
  return { id, tier: 0, source: 'system', createdAt: 0, pinned: false, compactable: true };
}

/** The memoised message for `key` when it has the same id, role, turn and blocks; else `candidate`, memoised. */
function stable(cache: WeakMap<Message, Message>, key: Message, candidate: Message): Message {
  const hit = cache.get(key);
  if (
    hit &&
    hit.id === candidate.id &&
    hit.role === candidate.role &&
    hit.turn === candidate.turn &&
    sameBlocks(hit.blocks, candidate.blocks)
  )
    return hit;
  cache.set(key, candidate);
  return candidate;
}

function sameBlocks(a: readonly Block[], b: readonly Block[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
