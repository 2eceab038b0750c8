/**
 * Removing whole turns without an LLM, shared by middle removal, oldest removal and hybrid.
 *
 * A removed run of contiguous turns is replaced by exactly two messages: a user message with
 * a marker ("[Turns a–b were removed …]", compactor, not compactable) followed by the user's
 * own text blocks of those turns verbatim (the same block objects), then an assistant
 * "Understood.". Each run is one CompactionRecord keeping the originals verbatim, so
 * restoring the records (newest first) gives back the conversation exactly.
 */
import type { ConversationState, Message, TextBlock } from '../model';
import { counterIds, type Clock, type IdSource } from '../ports';
import { applyRecord } from './apply';
import { protectionOf, turnsOf, type Turn } from './priority';
import type { CompactionLayer, CompactionRecord, CompactionTrigger } from './types';

/** Options every removal strategy takes. */
export interface RemovalOptions {
  /** Tokens to free (in the units of `tokensOf`); 0 or less removes nothing. */
  readonly tokensToFree: number;
  /**
   * Tokens of one message (calibrated, as the budget counts them). It must depend on content
   * only, not on ids: planning counts draft replacements whose ids are placeholders.
   */
  readonly tokensOf: (m: Message) => number;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly keepRecentTurns: number;
  readonly keepRecentTokens: number;
  /** Keep the turns holding the first N messages (default: middle removal 2, oldest removal 0). */
  readonly keepFirst?: number;
  /** Keep the turns holding the last M messages (default 0: the recent-turn rules keep the end). */
  readonly keepLast?: number;
  /** What started the compaction (default `auto-soft`). */
  readonly trigger?: CompactionTrigger;
  /** Strategy setting recorded in each record (default: the layer). */
  readonly strategy?: string;
}

/** What a removal strategy returns: the new state and one record per removed run. */
export interface RemovalResult {
  readonly state: ConversationState;
  readonly records: readonly CompactionRecord[];
  /** Σ (tokensBefore − tokensAfter) over the records. */
  readonly tokensFreed: number;
}

/** Which layer records the removal and how its marker names it (e.g. `middle removal`). */
export interface RemovalKind {
  readonly layer: Extract<CompactionLayer, 'middle-removal' | 'oldest-removal' | 'hybrid'>;
  readonly label: string;
}

/** The marker text standing in for turns `first`–`last`. */
export function removalMarker(first: number, last: number, label: string): string {
  if (first === last) return `[Turn ${first} was removed to save context (${label}); it can be restored from the Compactions view.]`;
  return `[Turns ${first}–${last} were removed to save context (${label}); they can be restored from the Compactions view.]`;
}

/** The two messages that replace a run of whole turns (the run's first message must be the user's). */
export function removalReplacement(run: readonly Message[], label: string, clock: Clock, ids: IdSource): Message[] {
  const first = run[0]?.turn ?? 0;
  const last = run.at(-1)?.turn ?? first;
  const now = clock.now();
  const note = (text: string, tier: 0 | 2): TextBlock => ({ type: 'text', text, meta: { id: ids.next('blk'), tier, source: 'compactor', createdAt: now, pinned: false, compactable: false } });
  const words = run.flatMap((m) => m.blocks.filter((b): b is TextBlock => b.type === 'text' && b.meta.source === 'user'));
  return [
    { id: ids.next('msg'), role: 'user', blocks: [note(removalMarker(first, last, label), 0), ...words], turn: first },
    { id: ids.next('msg'), role: 'assistant', blocks: [note('Understood.', 2)], turn: last },
  ];
}

/** Builds the record that replaces `run` (contiguous whole turns) by its marker pair. */
export function removalRecord(run: readonly Message[], kind: RemovalKind, opts: Pick<RemovalOptions, 'tokensOf' | 'clock' | 'ids' | 'trigger' | 'strategy'>): CompactionRecord {
  const replacement = removalReplacement(run, kind.label, opts.clock, opts.ids);
  const tokensBefore = sum(run.map(opts.tokensOf));
  return {
    id: opts.ids.next('cmp'),
    at: opts.clock.now(),
    trigger: opts.trigger ?? 'auto-soft',
    layer: kind.layer,
    strategy: opts.strategy ?? kind.layer,
    regions: [{ firstTurn: run[0]?.turn ?? 0, lastTurn: run.at(-1)?.turn ?? 0, messageIds: run.map((m) => m.id), tokens: tokensBefore }],
    originals: run,
    replacement,
    tokensBefore,
    tokensAfter: sum(replacement.map(opts.tokensOf)),
    costUsd: 0,
    durationMs: 0,
    fallbacks: [],
  };
}

/** Orders the removable turns, first to go first. */
export type RemovalOrder = (removable: readonly Turn[]) => readonly Turn[];

/**
 * Removes whole turns in `order` until `tokensToFree` is reached or no removable turn frees
 * anything more. A turn whose removal would not shrink the history (its marker costs as much
 * as it frees) is skipped, and retried once its neighbours are gone. Pure.
 */
export function removeTurns(state: ConversationState, opts: RemovalOptions, kind: RemovalKind, order: RemovalOrder, keepFirstDefault: number): RemovalResult {
  const turns = turnsOf(state.messages, opts.tokensOf);
  const rules = { keepFirst: opts.keepFirst ?? keepFirstDefault, keepLast: opts.keepLast ?? 0, keepRecentTurns: opts.keepRecentTurns, keepRecentTokens: opts.keepRecentTokens };
  const protection = protectionOf(turns, rules);
  const candidates = order(turns.filter((t) => protection[t.ordinal] === undefined));
  const selected = planRemoval(turns, candidates, opts, kind.label);
  let next = state;
  const records: CompactionRecord[] = [];
  for (const [a, b] of runsOf(selected)) {
    const run = state.messages.slice(turns[a]?.start ?? 0, turns[b]?.end ?? 0);
    const record = removalRecord(run, kind, opts);
    const applied = applyRecord(next, record);
    if (!applied.ok) throw new Error(`Turn removal could not apply its own record: ${applied.reason}`);
    next = applied.state;
    records.push(record);
  }
  return { state: next, records, tokensFreed: sum(records.map((r) => r.tokensBefore - r.tokensAfter)) };
}

/** Greedy choice of turns to remove; returns a flag per turn. */
function planRemoval(turns: readonly Turn[], candidates: readonly Turn[], opts: RemovalOptions, label: string): boolean[] {
  const selected = turns.map(() => false);
  const scratch = counterIds('plan');
  const gains = new Map<string, number>();
  const gain = (a: number, b: number): number => {
    const key = `${a}:${b}`;
    const known = gains.get(key);
    if (known !== undefined) return known;
    const run = turns.slice(a, b + 1).flatMap((t) => t.messages);
    const value = sum(turns.slice(a, b + 1).map((t) => t.tokens)) - sum(removalReplacement(run, label, opts.clock, scratch).map(opts.tokensOf));
    gains.set(key, value);
    return value;
  };
  let freed = 0;
  let changed = true;
  while (changed && freed < opts.tokensToFree) {
    changed = false;
    for (const t of candidates) {
      if (freed >= opts.tokensToFree) break;
      const k = t.ordinal;
      if (selected[k]) continue;
      let a = k;
      let b = k;
      while (a > 0 && selected[a - 1]) a--;
      while (b < turns.length - 1 && selected[b + 1]) b++;
      const increment = gain(a, b) - (a < k ? gain(a, k - 1) : 0) - (b > k ? gain(k + 1, b) : 0);
      if (increment <= 0) continue;
      selected[k] = true;
      freed += increment;
      changed = true;
    }
  }
  return selected;
}

/** Contiguous selected ranges, as inclusive [first, last] turn ordinals. */
function runsOf(selected: readonly boolean[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  selected.forEach((s, k) => {
    if (!s) return;
    const last = runs.at(-1);
    if (last && last[1] === k - 1) last[1] = k;
    else runs.push([k, k]);
  });
  return runs;
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
