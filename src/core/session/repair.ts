/**
 * Repairs a conversation so it satisfies `checkInvariants` without losing a word the user
 * typed (used when a session is loaded, after its entries are replayed). Pure.
 */
import type { Block, Message, TextBlock, ToolResultBlock, ToolResultContent } from '../conversation/conversationModel';
import { headChars } from '../platform/text';
import { interruptedToolResult } from '../normalize/structure';

/** Counts the steps of `repairMessages` (id probes, messages and blocks handled), so tests can check the work grows linearly. */
export interface RepairMeter {
  steps: number;
}

/** Text of the synthetic answer to a tool call that never got one. */
export const INTERRUPTED_TOOL_RESULT = 'The tool call was interrupted before it finished (session recovered).';
const ORPHAN_PREVIEW_CHARS = 200;

/**
 * Makes `messages` satisfy `checkInvariants` (pending tool calls allowed) while keeping
 * every word the user typed. In order: a message repeated verbatim is dropped, other repeated
 * message/block/tool-call ids are renamed; whitespace-only text is dropped; a block in the
 * wrong role becomes a text block; summaries and the user's words become non-compactable;
 * empty messages are dropped; a leading assistant message gets a placeholder user message
 * before it; consecutive messages of one role are merged (the first id is kept); a
 * tool_result answering nothing (or answering twice) becomes the text
 * `[orphaned tool result for <id>: <first 200 chars>]`; a tool_use left unanswered when a
 * user message follows gets an error result saying it was interrupted; tool results are
 * moved before other content; decreasing turn numbers are raised. A trailing assistant
 * message with unanswered tool calls is kept as it is: the agent loop answers those calls
 * as cancelled when the conversation resumes. `fixes` lists each change as a sentence.
 * The work is linear in the number of messages and blocks, however many ids repeat;
 * `meter` (tests) counts its steps.
 */
export function repairMessages(
  messages: readonly Message[],
  meter: RepairMeter = { steps: 0 },
): { messages: Message[]; fixes: string[] } {
  const fixes: string[] = [];
  const fresh = freshIds(messages, meter);
  let ms = dedupe(messages, fixes, fresh, meter);
  ms = ms
    .map((m) => cleanBlocks(m, fixes))
    .filter((m) => {
      if (m.blocks.length === 0) fixes.push(`Message ${m.id} had no content left and was dropped.`);
      return m.blocks.length > 0;
    });
  const first = ms[0];
  if (first && first.role === 'assistant') {
    fixes.push(
      'The conversation began with an answer of the assistant; a note that its start was lost was put before it.',
    );
    ms.unshift({
      id: fresh('msg_recovered_start'),
      role: 'user',
      turn: first.turn,
      blocks: [
        {
          type: 'text',
          text: '(The start of this conversation was lost when the session file was damaged.)',
          meta: {
            id: fresh('blk_recovered_start'),
            tier: 0,
            source: 'system',
            createdAt: first.blocks[0]?.meta.createdAt ?? 0,
            pinned: false,
            compactable: true,
          },
        },
      ],
    });
  }
  const merged = mergeSameRole(ms, fixes, meter);
  const out = merged.map((m, i) => (m.role === 'user' ? pairResults(m, merged[i - 1], fixes, fresh) : m));
  for (let i = 1; i < out.length; i++) {
    const prev = out[i - 1] as Message;
    const m = out[i] as Message;
    if (m.turn >= prev.turn) continue;
    fixes.push(`Message ${m.id} had turn ${m.turn} after turn ${prev.turn}; it was renumbered.`);
    out[i] = { ...m, turn: prev.turn };
  }
  return { messages: out, fixes };
}

/**
 * `fresh(base)`: `base` when no message, block or tool call uses it yet, else `base-2`, `base-3`, … (the
 * first free one), remembered as used. Each base keeps its next suffix, so n repeats of one
 * id cost O(n) probes in all, not O(n²).
 */
function freshIds(messages: readonly Message[], meter: RepairMeter): (base: string) => string {
  const taken = new Set<string>();
  for (const m of messages) {
    taken.add(m.id);
    for (const b of m.blocks) {
      taken.add(b.meta.id);
      if (b.type === 'tool_use') taken.add(b.id);
    }
  }
  const nextSuffix = new Map<string, number>();
  return (base) => {
    meter.steps++;
    if (!taken.has(base)) {
      taken.add(base);
      return base;
    }
    let n = nextSuffix.get(base) ?? 2;
    for (; taken.has(`${base}-${n}`); n++) meter.steps++;
    nextSuffix.set(base, n + 1);
    const id = `${base}-${n}`;
    taken.add(id);
    return id;
  };
}

/** Consecutive messages of one role merged into the first (its id kept), each block copied once. */
function mergeSameRole(ms: readonly Message[], fixes: string[], meter: RepairMeter): Message[] {
  const runs: { first: Message; blocks: Block[] | undefined }[] = [];
  for (const m of ms) {
    meter.steps++;
    const run = runs.at(-1);
    if (run?.first.role !== m.role) {
      runs.push({ first: m, blocks: undefined });
      continue;
    }
    fixes.push(`Messages ${run.first.id} and ${m.id} were both from the ${m.role}; they were merged.`);
    run.blocks ??= [...run.first.blocks];
    for (const b of m.blocks) {
      run.blocks.push(b);
      meter.steps++;
    }
  }
  return runs.map((r) => (r.blocks ? { ...r.first, blocks: r.blocks } : r.first));
}

function dedupe(
  messages: readonly Message[],
  fixes: string[],
  fresh: (base: string) => string,
  meter: RepairMeter,
): Message[] {
  const seen = new Map<string, string>();
  const blockIds = new Set<string>();
  const toolIds = new Set<string>();
  const out: Message[] = [];
  for (const m of messages) {
    meter.steps += 1 + m.blocks.length;
    const json = stableText(m);
    const before = seen.get(m.id);
    if (before === json) {
      fixes.push(`Message ${m.id} was written twice; the second copy was dropped.`);
      continue;
    }
    const id = before === undefined ? m.id : fresh(m.id);
    if (id !== m.id) fixes.push(`Two different messages had the id ${m.id}; the second is now ${id}.`);
    seen.set(id, json);
    const blocks = m.blocks.map((b): Block => {
      let r = b;
      if (blockIds.has(b.meta.id)) {
        r = { ...r, meta: { ...r.meta, id: fresh(b.meta.id) } } as Block;
        fixes.push(`The block id ${b.meta.id} was used twice; the second is now ${r.meta.id}.`);
      }
      blockIds.add(r.meta.id);
      if (r.type === 'tool_use') {
        if (toolIds.has(r.id)) {
          const tid = fresh(r.id);
          fixes.push(`The tool call id ${r.id} was used twice; the second is now ${tid}.`);
          r = { ...r, id: tid, meta: { ...r.meta, toolUseId: tid } };
        }
        toolIds.add(r.id);
      }
      return r;
    });
    out.push({ ...m, id, blocks });
  }
  return out;
}

function cleanBlocks(m: Message, fixes: string[]): Message {
  const blocks: Block[] = [];
  for (const b of m.blocks) {
    let r: Block = b;
    if (b.type === 'tool_use' && m.role === 'user')
      r = asText(
        b,
        `[tool call ${b.name} (${b.id}) found in a user message: ${preview(JSON.stringify(b.input) ?? '')}]`,
      );
    else if (b.type === 'thinking' && m.role === 'user') r = asText(b, b.thinking);
    else if (b.type === 'tool_result' && m.role === 'assistant') r = asText(b, orphanText(b));
    else if (b.type === 'image' && m.role === 'assistant')
      r = asText(b, `[an image (${b.mediaType}) found in an assistant message was removed]`);
    if (r !== b) fixes.push(`A ${b.type} block cannot be in a ${m.role} message (${m.id}); it became text.`);
    if ((r.type === 'text' || r.type === 'summary') && r.text.trim().length === 0) {
      fixes.push(`An empty text block was dropped from message ${m.id}.`);
      continue;
    }
    if (r.meta.compactable && (r.type === 'summary' || (r.type === 'text' && r.meta.source === 'user'))) {
      fixes.push(
        `Block ${r.meta.id} (${r.type === 'summary' ? 'a summary' : "the user's words"}) was marked compactable; it no longer is.`,
      );
      r = { ...r, meta: { ...r.meta, compactable: false } };
    }
    blocks.push(r);
  }
  return blocks.length === m.blocks.length && blocks.every((b, i) => b === m.blocks[i]) ? m : { ...m, blocks };
}

function pairResults(m: Message, prev: Message | undefined, fixes: string[], fresh: (base: string) => string): Message {
  const uses = prev?.role === 'assistant' ? prev.blocks.flatMap((b) => (b.type === 'tool_use' ? [b] : [])) : [];
  const open = new Set(uses.map((u) => u.id));
  const results: Block[] = [];
  const rest: Block[] = [];
  let moved = false;
  for (const b of m.blocks) {
    if (b.type !== 'tool_result') rest.push(b);
    else if (open.delete(b.toolUseId)) {
      results.push(b);
      moved ||= rest.length > 0;
    } else {
      fixes.push(
        `A tool result for ${b.toolUseId} in message ${m.id} answered no tool call (or answered it twice); its start was kept as text.`,
      );
      rest.push(asText(b, orphanText(b)));
    }
  }
  if (moved) fixes.push(`Tool results in message ${m.id} were moved before its other content.`);
  for (const u of uses.filter((x) => open.has(x.id))) {
    fixes.push(`The tool call ${u.name} (${u.id}) had no result; an error result saying it was interrupted was added.`);
    results.push(interruptedToolResult(u, fresh(`blk_recovered_${u.id}`), INTERRUPTED_TOOL_RESULT));
  }
  const blocks = [...results, ...rest];
  return blocks.every((b, i) => b === m.blocks[i]) && blocks.length === m.blocks.length ? m : { ...m, blocks };
}

function asText(b: Block, text: string): TextBlock {
  const { toolUseId: _dropped, ...meta } = b.meta;
  return {
    type: 'text',
    text,
    meta: b.type === 'thinking' ? meta : { ...meta, source: b.type === 'image' ? b.meta.source : 'tool', tier: 3 },
  };
}

function orphanText(b: ToolResultBlock): string {
  return `[orphaned tool result for ${b.toolUseId}: ${preview(contentText(b.content))}]`;
}

function contentText(c: ToolResultContent): string {
  return typeof c === 'string' ? c : c.map((p) => (p.type === 'text' ? p.text : `[image ${p.mediaType}]`)).join('\n');
}

function preview(text: string): string {
  return text.length > ORPHAN_PREVIEW_CHARS ? `${headChars(text, ORPHAN_PREVIEW_CHARS)}…` : text;
}

/**
 * A message as JSON for comparing copies; a message that cannot be written as JSON (nested too
 * deep for the stack) gets a text of its own, so it is never taken for a copy and never throws.
 */
function stableText(m: Message): string {
  try {
    return JSON.stringify(m);
  } catch {
    return `\u0000unwritable ${m.id} ${m.blocks.length}`;
  }
}
