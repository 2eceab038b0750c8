/**
 * The structural rules of the one rule set (repairRules.ts, rules 3 to 8), for both passes: a
 * message with no content left is left out; consecutive messages of one role become one (tool
 * results first), except after an assistant message with tool calls, which get a user message
 * of their own; a leading assistant message gets a user message before it (unless it opens
 * with the block of a compaction on demand); repeated tool_use ids are renamed (their result
 * with them); every tool_use is answered in the very next message (`INTERRUPTED_CALL` when it
 * is not); a tool_result whose tool_use is not in the message just before becomes text. The
 * send pass also puts a user message after a final assistant message and sends an empty
 * conversation as one placeholder message; the load pass keeps both as they are.
 *
 * In the send pass every block and message it makes is memoised on the block or message it
 * stands for, so the same input gives the same objects turn after turn: the serializer's
 * per-Message memo and the estimator's anchored prefix (a pointer comparison per message) keep
 * working on a repaired conversation. Cost O(blocks) in both passes.
 */
import type { Block, Message, Role, TextBlock, ToolResultBlock, ToolUseBlock } from '../conversation/conversationModel';
import { CONTINUE_PLACEHOLDER, START_PLACEHOLDER } from './standInAnswers';
import { opensWithOnDemandSummary } from '../conversation/assistant';
import { scanMessage } from './blocks';
import type { Repair } from './repairs';
import { derivedMeta, interruptedToolResult, mergedDetail, orphanResultBlocks, toolIdAllocator } from './repairRules';

/** Which pass applies the rules (see repairRules.ts for the two contracts). */
export interface StructurePass {
  /**
   * `send`: a request — each message's blocks as normalize sends them (`scanMessage`, its
   * repairs included), a user message after a final assistant message, an empty conversation
   * sent as one placeholder message, everything memoised. `load`: a stored conversation — the
   * blocks as they are, a final assistant message and an empty conversation kept, nothing memoised.
   */
  readonly pass: 'send' | 'load';
  /**
   * The id of a message or block the rules add, given the id derived from what it stands for
   * (`<message id>_start`, `<block id>_interrupted`…). Default: that id (send); the load pass
   * gives ids unique in the session.
   */
  readonly idFor?: (base: string) => string;
}

/** The send pass (normalize's). */
export const SEND_PASS: StructurePass = { pass: 'send' };

/** One message of the output: consecutive source messages of one role, or a message the rules add. */
interface Group {
  readonly role: Role;
  /** The messages it holds (empty for an added message). */
  readonly sources: Message[];
  /** The message its id, turn and memo come from (for an added message: the one it is added for). */
  readonly key: Message;
  /** Why it was added: before a leading assistant message, between two assistant messages, after a final one. */
  readonly added?: 'start' | 'between' | 'end';
  blocks: Block[];
  /** Whether its blocks hold a tool call (an assistant group). */
  calls: boolean;
  /** A merged group's block ids → the source each came from (built when first asked). */
  origin?: Map<string, Message>;
}

/** What the last assistant message called, for the user message after it. */
interface Calls {
  readonly uses: ToolUseBlock[];
  /** Original id → the ids it was sent as, in order (a repeated id maps to several). */
  readonly queue: Map<string, string[]>;
}

/** One application of the rules. */
interface Run {
  readonly send: boolean;
  readonly id: (base: string) => string;
  readonly repairs: Repair[];
}

const outputs = new WeakMap<Message, Message>();
const added = {
  start: new WeakMap<Message, Message>(),
  between: new WeakMap<Message, Message>(),
  end: new WeakMap<Message, Message>(),
};
const placeholders = { start: new WeakMap<Message, TextBlock>(), end: new WeakMap<Message, TextBlock>() };
const renamedUses = new WeakMap<ToolUseBlock, ToolUseBlock>();
const renamedResults = new WeakMap<ToolResultBlock, ToolResultBlock>();
const interrupted = new WeakMap<ToolUseBlock, ToolResultBlock>();
const orphans = new WeakMap<ToolResultBlock, { readonly heading: boolean; readonly blocks: readonly Block[] }>();
let emptyConversation: Message | undefined;
const same = (base: string): string => base;

/**
 * `messages` repaired by the structural rules of `pass`, each repair appended to `repairs`
 * (its detail a sentence true of either pass). Never changes `messages` or their blocks: a
 * message that needs nothing comes back as the same object.
 */
export function repairStructure(messages: readonly Message[], repairs: Repair[], pass = SEND_PASS): Message[] {
  const run: Run = { send: pass.pass === 'send', id: pass.idFor ?? same, repairs };
  const groups = groupMessages(messages, run);
  if (groups.length === 0) {
    if (!run.send) return [];
    repairs.push({
      kind: 'first_not_user',
      detail: 'The request had no message with content; a placeholder user message was sent.',
    });
    emptyConversation ??= {
      id: 'msg_normalize_start',
      role: 'user',
      turn: 0,
      blocks: [{ type: 'text', text: START_PLACEHOLDER, meta: placeholderMeta('blk_normalize_start') }],
    };
    return [emptyConversation];
  }
  const taken = new Set<string>();
  for (const g of groups)
    for (const b of g.blocks) {
      if (b.type === 'tool_use') taken.add(b.id);
      if (b.type === 'tool_result') taken.add(b.toolUseId);
    }
  const fresh = toolIdAllocator(taken);
  const seen = new Set<string>();
  let calls: Calls | undefined;
  for (const g of groups) {
    if (g.role === 'assistant') calls = renameRepeatedCalls(g, seen, fresh, run);
    else {
      answerCalls(g, calls, run);
      calls = undefined;
    }
  }
  return groups.map((g) => toMessage(g, run));
}

/**
 * Messages with no content left are left out; consecutive user messages become one;
 * consecutive assistant messages too, unless the first makes tool calls (they are answered in
 * a user message put between the two). A user message is put before a leading assistant
 * message and, in the send pass, after a final one.
 */
function groupMessages(messages: readonly Message[], run: Run): Group[] {
  const groups: Group[] = [];
  for (const m of messages) {
    const blocks = blocksOf(m, run);
    if (blocks.length === 0) {
      run.repairs.push({
        kind: 'empty_message',
        messageId: m.id,
        detail: `Message ${m.id} had no content left; it was left out.`,
      });
      continue;
    }
    const calls = m.role === 'assistant' && blocks.some((b) => b.type === 'tool_use');
    const prev = groups[groups.length - 1];
    if (!prev && m.role === 'assistant' && !opensWithOnDemandSummary(m)) {
      run.repairs.push({
        kind: 'first_not_user',
        messageId: m.id,
        detail: `The conversation started with assistant message ${m.id}; a placeholder user message was put before it.`,
      });
      const start = placeholder('start', m, START_PLACEHOLDER, run.id(`${m.id}_start_text`), run);
      groups.push({ role: 'user', sources: [], key: m, added: 'start', blocks: [start], calls: false });
    } else if (prev?.role === m.role && !prev.calls) {
      prev.sources.push(m);
      prev.blocks.push(...blocks);
      prev.calls = calls;
      continue;
    } else if (prev?.role === m.role) {
      groups.push({ role: 'user', sources: [], key: m, added: 'between', blocks: [], calls: false });
    }
    groups.push({ role: m.role, sources: [m], key: m, blocks: [...blocks], calls });
  }
  for (const g of groups) {
    if (g.sources.length < 2) continue;
    run.repairs.push({
      kind: 'messages_merged',
      messageId: g.key.id,
      detail: mergedDetail(
        g.role,
        g.sources.map((s) => s.id),
      ),
    });
  }
  const last = groups[groups.length - 1];
  if (run.send && last?.role === 'assistant')
    groups.push({
      role: 'user',
      sources: [],
      key: last.sources[last.sources.length - 1] as Message,
      added: 'end',
      blocks: [],
      calls: false,
    });
  return groups;
}

/** The blocks message `m` holds for the rules: as normalize sends them (send pass, with their repairs) or as they are. */
function blocksOf(m: Message, run: Run): readonly Block[] {
  if (!run.send) return m.blocks;
  const scan = scanMessage(m);
  run.repairs.push(...scan.repairs);
  return scan.blocks;
}

function renameRepeatedCalls(g: Group, seen: Set<string>, fresh: (id: string) => string, run: Run): Calls {
  const uses: ToolUseBlock[] = [];
  const queue = new Map<string, string[]>();
  g.blocks = g.blocks.map((b) => {
    if (b.type !== 'tool_use') return b;
    let u = b;
    if (seen.has(b.id)) {
      u = renamedUse(b, fresh(b.id));
      run.repairs.push({
        kind: 'tool_use_id_duplicate',
        messageId: sourceOf(g, b).id,
        blockId: b.meta.id,
        detail: `The tool call id ${b.id} was already used; this call was renamed ${u.id}, its result with it.`,
      });
    }
    seen.add(u.id);
    uses.push(u);
    queue.set(b.id, [...(queue.get(b.id) ?? []), u.id]);
    return u;
  });
  return { uses, queue };
}

function answerCalls(g: Group, calls: Calls | undefined, run: Run): void {
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
      rest.push(...orphanBlocks(b, duplicate, run));
      run.repairs.push({
        kind: duplicate ? 'tool_result_duplicate' : 'tool_result_orphan',
        messageId: sourceOf(g, b).id,
        blockId: b.meta.id,
        detail: duplicate
          ? `A second result for the tool call ${b.toolUseId} became text.`
          : `The result for ${b.toolUseId}, whose call is not in the message before, answered no tool call; it became text.`,
      });
      continue;
    }
    if (rest.length > 0) moved = true;
    results.push(id === b.toolUseId ? b : renamedResult(b, id));
    answered.add(id);
  }
  for (const u of calls?.uses ?? []) {
    if (answered.has(u.id)) continue;
    const r = interruptedResult(u, run);
    results.push(r);
    run.repairs.push({
      kind: 'tool_use_interrupted',
      messageId: g.key.id,
      blockId: r.meta.id,
      detail: `The tool call ${u.name} (${u.id}) had no result; an error result saying it was interrupted was added.`,
    });
  }
  if (moved)
    run.repairs.push({
      kind: 'tool_result_moved',
      messageId: g.key.id,
      detail: `Tool results of message ${g.key.id} were moved before its other content.`,
    });
  g.blocks = results.length === 0 ? rest : [...results, ...rest];
}

/** The source message a block of group `g` came from (for the repair's messageId). */
function sourceOf(g: Group, b: Block): Message {
  if (g.sources.length <= 1) return g.key;
  g.origin ??= new Map(g.sources.flatMap((m) => m.blocks.map((x) => [x.meta.id, m] as const)).reverse());
  return g.origin.get(b.meta.id) ?? g.key;
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

function interruptedResult(u: ToolUseBlock, run: Run): ToolResultBlock {
  const hit = run.send ? interrupted.get(u) : undefined;
  if (hit?.toolUseId === u.id) return hit;
  const r = interruptedToolResult(u, run.id(`${u.meta.id}_interrupted`));
  if (run.send) interrupted.set(u, r);
  return r;
}

/** A tool_result that answers nothing (or a call already answered), as text, its images kept after it. */
function orphanBlocks(b: ToolResultBlock, duplicate: boolean, run: Run): readonly Block[] {
  const hit = run.send ? orphans.get(b) : undefined;
  if (hit?.heading === duplicate) return hit.blocks;
  const blocks = orphanResultBlocks(b, duplicate, (i) => run.id(`${b.meta.id}_image${i}`));
  if (run.send) orphans.set(b, { heading: duplicate, blocks });
  return blocks;
}

function toMessage(g: Group, run: Run): Message {
  const key = g.key;
  if (g.blocks.length === 0 && g.added === 'end') {
    run.repairs.push({
      kind: 'ends_with_assistant',
      messageId: key.id,
      detail: `The request ended with assistant message ${key.id} (Claude 4.6 models refuse a final assistant message); a user message asking to continue was appended.`,
    });
    g.blocks = [placeholder('end', key, CONTINUE_PLACEHOLDER, `${key.id}_end_text`, run)];
  }
  if (g.added) {
    const suffix = g.added === 'start' ? 'start' : g.added === 'between' ? 'before' : 'next';
    const id = run.id(`${key.id}_${suffix}`);
    return stable(added[g.added], key, { id, role: 'user', turn: key.turn, blocks: g.blocks }, run);
  }
  if (sameBlocks(key.blocks, g.blocks)) return key;
  return stable(outputs, key, { id: key.id, role: g.role, turn: key.turn, blocks: g.blocks }, run);
}

/** The placeholder text block of `kind` for message `key`, block id `id` (memoised in the send pass). */
function placeholder(kind: keyof typeof placeholders, key: Message, text: string, id: string, run: Run): TextBlock {
  const hit = run.send ? placeholders[kind].get(key) : undefined;
  if (hit?.meta.id === id) return hit;
  const p: TextBlock = { type: 'text', text, meta: placeholderMeta(id) };
  if (run.send) placeholders[kind].set(key, p);
  return p;
}

function placeholderMeta(id: string): TextBlock['meta'] {
  return { id, tier: 0, source: 'system', createdAt: 0, pinned: false, compactable: true };
}

/** The memoised message for `key` when it has the same id, role, turn and blocks; else `candidate`, memoised (send pass). */
function stable(cache: WeakMap<Message, Message>, key: Message, candidate: Message, run: Run): Message {
  if (!run.send) return candidate;
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
