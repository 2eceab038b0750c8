/**
 * A context engine's compaction (its `compact` hook: "these messages, by index, are replaced by
 * this summary") made into the pipeline's own record: the region's messages are kept as the
 * originals, a summary stands in for them shaped like the pipeline's summaries
 * (summaryReplacement.ts: the user's words kept verbatim, roles alternating), so the
 * Compactions view lists it, `recall` finds the originals, and Restore brings them back.
 * Refused, as an error value, when the range is not a whole run of messages the history can lose
 * at its ends: out of bounds, empty, splitting a tool call from its result, holding pinned
 * content, or a summary that is empty or too long. Pure.
 */
import type { CompactResult } from '../../../api/context-pipeline';
import type { ConversationState, Message } from '../conversation/conversationModel';
import type { Clock, IdSource } from '../platform/platformPorts';
import { buildReplacement, summaryHeading } from '../compaction/summaryReplacement';
import type { CompactionRecord } from '../compaction/types';

/** The longest summary an engine may write, in characters (a summary longer than this saves little). */
export const ENGINE_SUMMARY_MAX_CHARS = 200_000;

/** What an engine compaction needs besides the state. */
export interface EngineCompactionDeps {
  readonly clock: Clock;
  readonly ids: IdSource;
  /** Calibrated tokens of a message (the record's before/after figures). */
  readonly tokensOf: (m: Message) => number;
}

/** The compaction, or why the engine's answer cannot be one. */
export type EngineCompaction =
  | { readonly ok: true; readonly state: ConversationState; readonly record: CompactionRecord }
  | { readonly ok: false; readonly reason: string };

/** `result` of engine `engineId` applied to `state` as a restorable compaction record (see the module comment). */
export function engineCompaction(
  state: ConversationState,
  result: unknown,
  engineId: string,
  deps: EngineCompactionDeps,
): EngineCompaction {
  const shape = checkShape(result, state.messages.length);
  if (typeof shape === 'string') return { ok: false, reason: shape };
  const { from, to, summary } = shape;
  const originals = state.messages.slice(from, to);
  const split = splitsToolCall(state.messages, from, to);
  if (split) return { ok: false, reason: split };
  if (originals.some((m) => m.blocks.some((b) => b.meta.pinned)))
    return { ok: false, reason: 'the range holds pinned content, which is never compacted' };
  const first = originals[0] as Message;
  const last = originals.at(-1) as Message;
  const id = deps.ids.next('cmp');
  const replacement = buildReplacement(
    originals,
    { kind: 'summary', text: `${summaryHeading(first.turn, last.turn)}\n${summary}`, compactionId: id },
    deps,
  );
  const messages = [...state.messages.slice(0, from), ...replacement, ...state.messages.slice(to)];
  const before = originals.reduce((n, m) => n + deps.tokensOf(m), 0);
  const after = replacement.reduce((n, m) => n + deps.tokensOf(m), 0);
  const record: CompactionRecord = {
    id,
    at: deps.clock.now(),
    trigger: 'manual',
    layer: 'summarise',
    strategy: `engine ${engineId}`,
    regions: [{ firstTurn: first.turn, lastTurn: last.turn, messageIds: originals.map((m) => m.id), tokens: before }],
    originals,
    replacement,
    summary,
    tokensBefore: before,
    tokensAfter: after,
    costUsd: 0,
    durationMs: 0,
    fallbacks: [],
  };
  return { ok: true, state: { ...state, messages }, record };
}

function checkShape(result: unknown, length: number): CompactResult | string {
  const r = result as Partial<CompactResult> | null | undefined;
  if (!r || typeof r !== 'object') return 'it returned no { from, to, summary }';
  const { from, to, summary } = r;
  if (!Number.isInteger(from) || !Number.isInteger(to)) return 'its from and to are not whole numbers';
  if ((from as number) < 0 || (to as number) > length || (from as number) >= (to as number))
    return `its range ${String(from)}–${String(to)} is not a run of the ${length} messages`;
  if (typeof summary !== 'string' || summary.trim() === '') return 'its summary is empty';
  if (summary.length > ENGINE_SUMMARY_MAX_CHARS)
    return `its summary is ${summary.length.toLocaleString('en-US')} characters (at most ${ENGINE_SUMMARY_MAX_CHARS.toLocaleString('en-US')})`;
  return { from: from as number, to: to as number, summary: summary.trim() };
}

/** Why messages [from, to) cannot leave alone: a tool call inside whose result is outside, or the reverse. */
function splitsToolCall(messages: readonly Message[], from: number, to: number): string | undefined {
  const inside = new Set<string>();
  for (const m of messages.slice(from, to)) for (const b of m.blocks) if (b.type === 'tool_use') inside.add(b.id);
  for (const [i, m] of messages.entries()) {
    const within = i >= from && i < to;
    for (const b of m.blocks) {
      if (b.type !== 'tool_result') continue;
      if (within && !inside.has(b.toolUseId))
        return `message ${i + 1} answers a tool call before the range (${b.toolUseId})`;
      if (!within && inside.has(b.toolUseId))
        return `message ${i + 1} answers a tool call inside the range (${b.toolUseId})`;
    }
  }
  return undefined;
}
