/**
 * The session repair on load: makes the conversation a session file holds satisfy
 * `checkInvariants` without losing a word the user typed, by the rule set it shares with
 * normalize (normalize/repairRules.ts) and the session's own rules. What it changes is kept
 * (the loader writes it back as a `repair` entry) and listed. Pure.
 */
import type { Block, Message } from '../conversation/conversationModel';
import type { Repair } from '../normalize/repairs';
import { roleMayHold, wrongRoleBlocks } from '../normalize/repairRules';
import { repairStructure } from '../normalize/structure';

/** Counts the steps of `repairMessages` (id probes, messages and blocks handled), so tests can check the work grows linearly. */
export interface RepairMeter {
  steps: number;
}

/**
 * Makes `messages` satisfy `checkInvariants` (pending tool calls allowed) while keeping every
 * word the user typed. In order: a message repeated verbatim is dropped, other repeated
 * message and block ids are renamed (the session's rules); a block in the wrong role becomes
 * text or is left out, whitespace-only text is left out (the shared rules 1 and 2); summaries
 * and the user's words become non-compactable (the session's); then the shared structural
 * rules 3 to 8 (`repairStructure`'s load pass): a message with no content left is dropped, a
 * leading assistant message gets a placeholder user message before it, consecutive messages
 * of one role are merged (the first id kept; after tool calls, a user message answering them
 * is put between), a repeated tool call id is renamed with its result, a tool_use left
 * unanswered when a message follows gets the error result `INTERRUPTED_CALL`, a tool_result
 * answering nothing (or answering twice) becomes text, tool results come first; a trailing
 * assistant message with unanswered tool calls is kept as it is (the agent answers them with
 * the same text when the conversation resumes). Last, decreasing turn numbers are raised
 * (the session's). Every message and block the rules add has an id unused in the session.
 * `fixes` lists each change as a sentence. The work is linear in the number of messages and
 * blocks, however many ids repeat; `meter` (tests) counts its steps.
 */
export function repairMessages(
  messages: readonly Message[],
  meter: RepairMeter = { steps: 0 },
): { messages: Message[]; fixes: string[] } {
  const fixes: string[] = [];
  const fresh = freshIds(messages, meter);
  const cleaned = dedupe(messages, fixes, fresh, meter).map((m) => cleanBlocks(m, fixes));
  const repairs: Repair[] = [];
  const out = repairStructure(cleaned, repairs, { pass: 'load', idFor: fresh });
  for (const m of cleaned) meter.steps += 1 + m.blocks.length;
  fixes.push(...repairs.map((r) => r.detail));
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
 * `fresh(base)`: `base` when no message or block uses it yet, else `base-2`, `base-3`, … (the
 * first free one), remembered as used. Each base keeps its next suffix, so n repeats of one
 * id cost O(n) probes in all, not O(n²).
 */
function freshIds(messages: readonly Message[], meter: RepairMeter): (base: string) => string {
  const taken = new Set<string>();
  for (const m of messages) {
    taken.add(m.id);
    for (const b of m.blocks) taken.add(b.meta.id);
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

function dedupe(
  messages: readonly Message[],
  fixes: string[],
  fresh: (base: string) => string,
  meter: RepairMeter,
): Message[] {
  const seen = new Map<string, string>();
  const blockIds = new Set<string>();
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
      return r;
    });
    out.push({ ...m, id, blocks });
  }
  return out;
}

/**
 * The block rules of one message: a block in the wrong role becomes text or is left out
 * (the shared `wrongRoleBlocks`), whitespace-only text and summaries are left out (shared),
 * summaries and the user's words become non-compactable (the session's).
 */
function cleanBlocks(m: Message, fixes: string[]): Message {
  const blocks: Block[] = [];
  for (const b of m.blocks) {
    const held = roleMayHold(m.role, b);
    const replaced = held ? [b] : wrongRoleBlocks(b);
    if (!held)
      fixes.push(
        `A ${b.type} block cannot be in a ${m.role} message (${m.id}); it ${replaced.length > 0 ? 'became text' : 'was left out'}.`,
      );
    for (let r of replaced) {
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
  }
  return blocks.length === m.blocks.length && blocks.every((b, i) => b === m.blocks[i]) ? m : { ...m, blocks };
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
