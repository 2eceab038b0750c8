/**
 * Removing whole turns without an LLM, shared by middle removal, oldest removal and hybrid.
 *
 * A removed run of contiguous turns is replaced by exactly two messages: a user message with
 * a marker ("[Turns a–b were removed …]", compactor, not compactable) followed by the user's
 * own text blocks of those turns verbatim (the same block objects), then an assistant
 * "Understood.". Each run is one CompactionRecord keeping the originals verbatim, so
 * restoring the records (newest first) gives back the conversation exactly.
 */
import type { ConversationState, Message, TextBlock } from '../conversation/conversationModel';
import { counterIds, type Clock, type IdSource } from '../platform/platformPorts';
import { protectionOf, turnsOf, type Turn } from './priority';
import type { CompactionLayer, CompactionRecord, CompactionTrigger } from './types';

/** Options every removal strategy takes. */
export interface RemovalOptions {
  /** Tokens to free (in the units of `tokensOf`); 0 or less removes nothing. */
  readonly tokensToFree: number;
  /**
   * Tokens of one message (calibrated, as the budget counts them). It must depend on content
   * only, not on ids: planning counts draft replacements whose ids are placeholders. It must
   * be additive over blocks (a per-message constant plus a count per block, as the budget's
   * calibrated counter and chars/4 are): planning counts a marker message by parts, so that
   * it stays linear in the length of the history.
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
  if (first === last)
    return `[Turn ${first} was removed to save context (${label}); it can be restored from the Compactions view.]`;
  return `[Turns ${first}–${last} were removed to save context (${label}); they can be restored from the Compactions view.]`;
}

/** The two messages that replace a run of whole turns (the run's first message must be the user's). */
export function removalReplacement(run: readonly Message[], label: string, clock: Clock, ids: IdSource): Message[] {
  const first = run[0]?.turn ?? 0;
  const words = run.flatMap(userWordsOf);
  return replacementOf(first, run.at(-1)?.turn ?? first, words, label, clock, ids);
}

/** The marker pair for turns `first`–`last` carrying the user's `words`. */
function replacementOf(
  first: number,
  last: number,
  words: readonly TextBlock[],
  label: string,
  clock: Clock,
  ids: IdSource,
): Message[] {
  const now = clock.now();
  const note = (text: string, tier: 0 | 2): TextBlock => ({
    type: 'text',
    text,
    meta: { id: ids.next('blk'), tier, source: 'compactor', createdAt: now, pinned: false, compactable: false },
  });
  return [
    { id: ids.next('msg'), role: 'user', blocks: [note(removalMarker(first, last, label), 0), ...words], turn: first },
    { id: ids.next('msg'), role: 'assistant', blocks: [note('Understood.', 2)], turn: last },
  ];
}

/** The user's own text blocks of one message. */
function userWordsOf(m: Message): TextBlock[] {
  return m.blocks.filter((b): b is TextBlock => b.type === 'text' && b.meta.source === 'user');
}

/** Builds the record that replaces `run` (contiguous whole turns) by its marker pair. */
export function removalRecord(
  run: readonly Message[],
  kind: RemovalKind,
  opts: Pick<RemovalOptions, 'tokensOf' | 'clock' | 'ids' | 'trigger' | 'strategy'>,
): CompactionRecord {
  const replacement = removalReplacement(run, kind.label, opts.clock, opts.ids);
  const tokensBefore = sum(run.map(opts.tokensOf));
  return {
    id: opts.ids.next('cmp'),
    at: opts.clock.now(),
    trigger: opts.trigger ?? 'auto-soft',
    layer: kind.layer,
    strategy: opts.strategy ?? kind.layer,
    regions: [
      {
        firstTurn: run[0]?.turn ?? 0,
        lastTurn: run.at(-1)?.turn ?? 0,
        messageIds: run.map((m) => m.id),
        tokens: tokensBefore,
      },
    ],
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
 * as it frees) is skipped, and retried once its neighbours are gone. Pure; O(n log n) in the
 * number of messages, and `tokensOf` sees each message a bounded number of times.
 */
export function removeTurns(
  state: ConversationState,
  opts: RemovalOptions,
  kind: RemovalKind,
  order: RemovalOrder,
  keepFirstDefault: number,
): RemovalResult {
  const turns = turnsOf(state.messages, opts.tokensOf);
  const rules = {
    keepFirst: opts.keepFirst ?? keepFirstDefault,
    keepLast: opts.keepLast ?? 0,
    keepRecentTurns: opts.keepRecentTurns,
    keepRecentTokens: opts.keepRecentTokens,
  };
  const protection = protectionOf(turns, rules);
  const candidates = order(turns.filter((t) => protection[t.ordinal] === undefined));
  const selected = planRemoval(turns, candidates, opts, kind.label);
  // One pass over the conversation: each run of selected turns becomes its marker pair (what
  // applying the records one after the other gives, without a copy of the history per run).
  const records: CompactionRecord[] = [];
  const messages: Message[] = [];
  let cursor = 0;
  for (const [a, b] of runsOf(selected)) {
    const start = turns[a]?.start ?? 0;
    const end = turns[b]?.end ?? 0;
    for (let i = cursor; i < start; i++) messages.push(state.messages[i] as Message);
    const record = removalRecord(state.messages.slice(start, end), kind, opts);
    messages.push(...record.replacement);
    records.push(record);
    cursor = end;
  }
  if (records.length === 0) return { state, records, tokensFreed: 0 };
  for (let i = cursor; i < state.messages.length; i++) messages.push(state.messages[i] as Message);
  return {
    state: { ...state, messages },
    records,
    tokensFreed: sum(records.map((r) => r.tokensBefore - r.tokensAfter)),
  };
}

/**
 * The net tokens removing turns a–b (inclusive ordinals) as one run frees: their tokens minus
 * their marker pair's. Counted by parts, each in O(1) after a linear setup: prefix sums of
 * the turns' tokens and of their user words' tokens, and the marker pair without the words.
 * This relies on `tokensOf` being additive over blocks (a per-message constant plus a count
 * per block), as the budget's calibrated counter is.
 */
function gainOf(turns: readonly Turn[], opts: RemovalOptions, label: string): (a: number, b: number) => number {
  const scratch = counterIds('plan');
  const probe = (blocks: readonly TextBlock[]): Message => ({ id: 'plan_probe', role: 'user', blocks, turn: 0 });
  const empty = opts.tokensOf(probe([]));
  const tokenPrefix = [0];
  const wordPrefix = [0];
  for (const t of turns) {
    const words = t.messages.flatMap(userWordsOf);
    tokenPrefix.push((tokenPrefix.at(-1) ?? 0) + t.tokens);
    wordPrefix.push((wordPrefix.at(-1) ?? 0) + (words.length === 0 ? 0 : opts.tokensOf(probe(words)) - empty));
  }
  return (a, b) => {
    const first = turns[a]?.messages[0]?.turn ?? 0;
    const last = turns[b]?.messages.at(-1)?.turn ?? first;
    const pair = sum(replacementOf(first, last, [], label, opts.clock, scratch).map(opts.tokensOf));
    const removed = (tokenPrefix[b + 1] ?? 0) - (tokenPrefix[a] ?? 0);
    return removed - (pair + (wordPrefix[b + 1] ?? 0) - (wordPrefix[a] ?? 0));
  };
}

/**
 * Greedy choice of turns to remove; returns a flag per turn. Passes over the candidates in
 * order, taking each turn whose removal (merged with the selected runs beside it) frees more;
 * a pass after one that took something retries the skipped turns. Only a turn beside a run
 * that grew can decide differently on a retry, so a retry visits just those (in order, from a
 * queue), which gives the same choice as re-scanning every candidate on every pass.
 */
function planRemoval(
  turns: readonly Turn[],
  candidates: readonly Turn[],
  opts: RemovalOptions,
  label: string,
): boolean[] {
  const n = turns.length;
  const selected = new Array<boolean>(n).fill(false);
  const gains = new Map<number, number>();
  const gainRaw = gainOf(turns, opts, label);
  const gain = (a: number, b: number): number => {
    const key = a * n + b;
    let value = gains.get(key);
    if (value === undefined) gains.set(key, (value = gainRaw(a, b)));
    return value;
  };
  // For a selected run a–b: runEnd[a] = b and runStart[b] = a.
  const runStart = new Int32Array(n);
  const runEnd = new Int32Array(n);
  const position = new Int32Array(n).fill(-1);
  candidates.forEach((t, p) => (position[t.ordinal] = p));

  let pass = new PositionQueue(candidates.length, true);
  let next = new PositionQueue(candidates.length, false);
  let freed = 0;
  let changed = true;
  while (changed && freed < opts.tokensToFree) {
    changed = false;
    for (let p = pass.pop(); p !== undefined; p = pass.pop()) {
      if (freed >= opts.tokensToFree) break;
      const k = candidates[p]?.ordinal ?? 0;
      if (selected[k]) continue;
      const a = k > 0 && selected[k - 1] ? (runStart[k - 1] ?? k) : k;
      const b = k < n - 1 && selected[k + 1] ? (runEnd[k + 1] ?? k) : k;
      const increment = gain(a, b) - (a < k ? gain(a, k - 1) : 0) - (b > k ? gain(k + 1, b) : 0);
      if (increment <= 0) continue;
      selected[k] = true;
      freed += increment;
      changed = true;
      runEnd[a] = b;
      runStart[b] = a;
      // The turns beside the grown run now see another run: retry them (later in this pass if they come later).
      for (const j of [a - 1, b + 1]) {
        const q = j >= 0 && j < n && !selected[j] ? (position[j] ?? -1) : -1;
        if (q > p) pass.push(q);
        else if (q >= 0) next.push(q);
      }
    }
    // A pass ends drained (or with enough freed, which ends the loop): the queues swap.
    [pass, next] = [next, pass];
  }
  return selected;
}

/** A min-queue of candidate positions (each held at most once), optionally starting full. */
class PositionQueue {
  private readonly heap: number[];
  private readonly held: Uint8Array;

  constructor(size: number, full: boolean) {
    this.heap = full ? Array.from({ length: size }, (_, i) => i) : [];
    this.held = new Uint8Array(size).fill(full ? 1 : 0);
  }

  push(p: number): void {
    if (this.held[p]) return;
    this.held[p] = 1;
    const h = this.heap;
    let i = h.push(p) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((h[parent] ?? 0) <= p) break;
      h[i] = h[parent] ?? 0;
      i = parent;
    }
    h[i] = p;
  }

  pop(): number | undefined {
    const h = this.heap;
    const top = h[0];
    if (top === undefined) return undefined;
    this.held[top] = 0;
    const last = h.pop() ?? 0;
    if (h.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= h.length) break;
        const r = l + 1;
        const c = r < h.length && (h[r] ?? 0) < (h[l] ?? 0) ? r : l;
        if ((h[c] ?? 0) >= last) break;
        h[i] = h[c] ?? 0;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
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
