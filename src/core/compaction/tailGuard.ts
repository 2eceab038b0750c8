/**
 * Tail guard: the last step before a request that would not fit the window. Compaction never
 * touches the newest tool round (a tool_use goes with its tool_result) nor the answer before
 * the user's newest words, nor any of the user's own words (summaries keep them verbatim),
 * and the arrival guards bound only what tools and the user bring one message at a time.
 * What it keeps can still outgrow the window: an assistant message larger than the window
 * leaves (a session resumed with a smaller window or another model, or carried over from an
 * agent with a larger answer limit: a 64k-token Write in a 100k window), or the user's words
 * of a long session of pasted code (each paste under the paste limit, all of them together
 * more than the window). Then (before a summary that could not help, after every other layer,
 * and in overflow recovery: see the Compactor) the largest such blocks are cut in the middle
 * — a call's long input strings (the API's own context editing clears tool inputs too:
 * `clear_tool_inputs`, platform.claude.com/docs/en/build-with-claude/context-editing), long
 * answer text, and long messages of the user before the newest one — each with a note saying
 * what was left out and why, until the request is back at the hard target; if that is not
 * enough (a long session of short messages, none worth cutting), the user's oldest messages
 * are left out, one marker per message standing for them. The user's newest words, thinking
 * blocks (their signature covers them) and pinned blocks are never changed. One record keeps
 * the originals (restorable, and `recall` searches them). Pure.
 */
import type {
  Block,
  ConversationState,
  Message,
  PipelineConfig,
  TextBlock,
  ToolUseBlock,
} from '../conversation/conversationModel';
import { formatCount } from '../text/counts';
import { isServerStrategy } from '../server/serverContext';
import { commitBlockEdits, freshMeta, type LayerContext, type LayerResult } from './layerContext';
import { HARD_WAIT_LIMIT } from './plan';
import { effectiveWindow, hardTargetTokens, type CompactionSettings } from './policy';
import type { CompactionRecord } from './types';
import { isUserWords, newestWordsIndex } from './regions';
import { cutMiddle } from './toolResultGuard';

/** Characters a cut string keeps (head and tail together, with its note). */
export const TAIL_GUARD_KEEP_CHARS = 2_000;

/**
 * An assistant block smaller than this many tokens is never cut: it would free too little (a
 * cut keeps about {@link TAIL_GUARD_KEEP_CHARS} characters, some 500 tokens). Not higher: a
 * round of forty parallel Writes of 1,900 tokens each is more than a 100k window leaves.
 */
export const TAIL_GUARD_MIN_TOKENS = 1_000;

/**
 * A message of the user is cut only when its text is longer than this many characters (it
 * keeps {@link TAIL_GUARD_KEEP_CHARS}, so a cut frees at least half): a question stays whole,
 * a paste of code may be cut.
 */
export const TAIL_GUARD_MIN_USER_CHARS = 2 * TAIL_GUARD_KEEP_CHARS;

/**
 * How far below the hard target the guard cuts before a request, as a share of the effective
 * window: what it keeps only grows (every message of the user adds to it), so a cut just to
 * the target would be needed again a few requests later, each time rewriting the cached prompt.
 */
export const TAIL_GUARD_DEPTH_SHARE = 0.1;

/** Characters an older message of the user keeps when cutting the large blocks was not enough. */
export const TAIL_GUARD_STUB_CHARS = 400;

/** Whether an older message of the user is long enough for the guard to cut it to a stub. */
function cuttableToStub(b: TextBlock): boolean {
  return b.text.length > 2 * TAIL_GUARD_STUB_CHARS;
}

/**
 * An older message of the user as short as the guard may cut it — its first
 * {@link TAIL_GUARD_STUB_CHARS} characters, fresh meta — or itself when it is too short to cut:
 * a stand-in for counting what must stay (the round guard's budget).
 */
export function shortestWords(b: TextBlock): TextBlock {
  return cuttableToStub(b) ? { ...b, text: b.text.slice(0, TAIL_GUARD_STUB_CHARS), meta: freshMeta(b.meta) } : b;
}

/** The guard's outcome: a layer result, the blocks cut, and a sentence for the user when any were. */
export interface TailGuardResult extends LayerResult {
  readonly cut: number;
  readonly notice?: string;
}

/** One block the guard may cut, with its tokens. */
interface Candidate {
  readonly block: TextBlock | ToolUseBlock;
  readonly role: Message['role'];
  readonly turn: number;
  readonly tokens: number;
  /** The id of the message it is in. */
  readonly message: string;
}

/** The calls that have a result in `messages` (a call without one did not run). */
function answeredCalls(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const m of messages) for (const b of m.blocks) if (b.type === 'tool_result') ids.add(b.toolUseId);
  return ids;
}

/** Tokens of one block, as a message of its own (through the message counter). */
function blockTokens(block: Block, turn: number, ctx: LayerContext): number {
  return ctx.tokensOf({ id: `${block.meta.id}#tail-guard`, role: 'assistant', blocks: [block], turn });
}

/** The note left where a middle was cut. */
function note(what: string, cutChars: number, ran: boolean): string {
  const after = ran ? '; the call ran with the whole text' : '';
  return `[… ${formatCount(cutChars)} characters of ${what} left out so the request fits the context window${after}; the original is kept and can be restored from the Compactions view …]`;
}

/** Items a long array of a call's input keeps at its head and at its tail. */
const ARRAY_HEAD_ITEMS = 3;
const ARRAY_TAIL_ITEMS = 2;

/**
 * `value` with every string longer than the keep size cut in the middle, and every array
 * whose JSON is longer than twice the keep size cut to its first and last items with a note
 * in place of the rest (a MultiEdit of sixty short edits, a plot of thirty thousand numbers:
 * no single string is long, the whole is); objects and arrays walked.
 */
function cutStrings(value: unknown, ran: boolean): unknown {
  if (typeof value === 'string') {
    if (value.length <= TAIL_GUARD_KEEP_CHARS) return value;
    return cutMiddle(value, TAIL_GUARD_KEEP_CHARS, (c) => note('this input', c.cutChars, ran)).text;
  }
  if (Array.isArray(value)) {
    const keep = ARRAY_HEAD_ITEMS + ARRAY_TAIL_ITEMS;
    if (value.length > keep + 1 && (JSON.stringify(value)?.length ?? 0) > 2 * TAIL_GUARD_KEEP_CHARS) {
      const left = value.length - keep;
      const after = ran ? '; the call ran with all of them' : '';
      return [
        ...value.slice(0, ARRAY_HEAD_ITEMS).map((v) => cutStrings(v, ran)),
        `[… ${formatCount(left)} items of this input left out so the request fits the context window${after}; the original is kept and can be restored from the Compactions view …]`,
        ...value.slice(value.length - ARRAY_TAIL_ITEMS).map((v) => cutStrings(v, ran)),
      ];
    }
    return value.map((v) => cutStrings(v, ran));
  }
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutStrings(v, ran)]));
  return value;
}

/** The cut version of a candidate block, each long string to `keep` characters (the same object when none is longer). */
function cutBlock(block: TextBlock | ToolUseBlock, role: Message['role'], ran: boolean, keep: number): Block {
  if (block.type === 'text') {
    if (block.text.length <= keep) return block;
    const what = role === 'user' ? 'this message of the user' : 'this answer';
    const text = cutMiddle(block.text, keep, (c) => note(what, c.cutChars, false)).text;
    return { ...block, text, meta: freshMeta(block.meta) };
  }
  const input = cutStrings(block.input, ran);
  return JSON.stringify(input) === JSON.stringify(block.input)
    ? block
    : { ...block, input, meta: freshMeta(block.meta) };
}

/**
 * Cuts the blocks compaction keeps (see the module comment) until about `tokensToFree` tokens
 * are freed or nothing is left to cut: first the largest, each to {@link TAIL_GUARD_KEEP_CHARS};
 * then, if that was not enough, the user's older messages, oldest first, each to
 * {@link TAIL_GUARD_STUB_CHARS}; then, when that can make the room that is `needed` (default
 * all of `tokensToFree`), the user's oldest messages are left out (see dropOldest) — so
 * however many turns a session has, what its words take stays bounded. `wordsOnly`: the
 * user's messages only. One record of layer `tail-guard` (trigger from `ctx`, `auto-hard` by
 * default). The input state and no record when nothing could be cut.
 */
export function guardTail(
  state: ConversationState,
  ctx: LayerContext,
  tokensToFree: number,
  opts: { readonly wordsOnly?: boolean; readonly needed?: number } = {},
): TailGuardResult {
  if (tokensToFree <= 0) return { state, cut: 0 };
  const { large, older, oldest } = candidatesOf(state, ctx, opts.wordsOnly === true);
  const ran = answeredCalls(state.messages);
  const edits = new Map<string, Edit>();
  let freed = 0;
  const edit = (c: Candidate, cut: Block) => {
    const now = edits.get(c.block.meta.id)?.tokens ?? c.tokens;
    const tokens = blockTokens(cut, c.turn, ctx);
    edits.set(c.block.meta.id, { block: cut, tokens, role: c.role });
    freed += now - tokens;
  };
  for (const c of large) {
    if (freed >= tokensToFree) break;
    const cut = cutBlock(c.block, c.role, c.block.type === 'tool_use' && ran.has(c.block.id), TAIL_GUARD_KEEP_CHARS);
    if (cut !== c.block) edit(c, cut);
  }
  for (const c of older) {
    if (freed >= tokensToFree) break;
    const cut = cutBlock(c.block, c.role, false, TAIL_GUARD_STUB_CHARS);
    if (cut !== c.block) edit(c, cut);
  }
  // Only when leaving words out can make the room that is needed: never for a little.
  const droppable = oldest.reduce((n, c) => n + (edits.get(c.block.meta.id)?.tokens ?? c.tokens), 0);
  const rest = tokensToFree - freed;
  const mustFree = Math.min(rest, (opts.needed ?? tokensToFree) - freed);
  const dropped = rest > 0 && droppable - DROP_MARKER_TOKENS >= mustFree ? dropOldest(oldest, rest, edits, ctx) : 0;
  const blocks = new Map([...edits].map(([id, e]) => [id, e.block]));
  const r = commitBlockEdits(state, ctx, blocks, { layer: 'tail-guard', trigger: 'auto-hard' });
  if (!r.record) return { state, cut: 0 };
  const { tokensBefore, tokensAfter } = r.record;
  const userEdits = [...edits.values()].filter((e) => e.role === 'user');
  const userCut = userEdits.filter((e) => e.block !== null && !isDropMarker(e.block)).length;
  const answerCut = edits.size - userEdits.length;
  return { ...r, cut: edits.size, notice: guardNotice(answerCut, userCut, dropped, tokensBefore - tokensAfter) };
}

/** One block the guard changed: its new version (null: left out), its tokens now, and whose it was. */
interface Edit {
  readonly block: Block | null;
  readonly tokens: number;
  readonly role: Message['role'];
}

/** How every drop marker begins (it stands for the user's messages left out of its message). */
const DROP_MARKER_HEAD = '[Left out so the request fits the context window:';

/** Whether a block is a marker the guard left for messages of the user it left out. */
function isDropMarker(b: Block): boolean {
  return b.type === 'text' && b.text.startsWith(DROP_MARKER_HEAD);
}

/** The marker standing for `run` (the user's messages left out of one message), in place of its first. */
function dropMarker(run: readonly Candidate[]): TextBlock {
  const first = run[0] as Candidate;
  const turns = run.map((c) => c.turn);
  const lo = Math.min(...turns);
  const hi = Math.max(...turns);
  const what =
    run.length === 1 ? 'an earlier message of the user' : `${formatCount(run.length)} earlier messages of the user`;
  // Words a summary holds all sit in its message's turn: a range says nothing then.
  const when = lo !== hi ? ` (turns ${lo}–${hi})` : run.length === 1 ? ` (turn ${lo})` : '';
  return {
    ...(first.block as TextBlock),
    text: `${DROP_MARKER_HEAD} ${what}${when}. ${run.length === 1 ? 'It' : 'They'} can be restored from the Compactions view, and \`recall\` can read ${run.length === 1 ? 'it' : 'them'}.]`,
    meta: freshMeta(first.block.meta),
  };
}

/**
 * The last stage: when cutting long messages leaves too much — a long session of short
 * messages, which no compaction shrinks and no cut makes shorter — and leaving messages out
 * can make the room, the user's older messages (never the first, which states the task) are
 * left out, oldest first, until `tokensToFree` tokens are freed; in each message the
 * first one left out becomes a marker for all of its run (so a message that held only words
 * still holds a line of them and starts its turn). Records each change in `edits`; returns how
 * many messages were left out.
 */
function dropOldest(
  oldest: readonly Candidate[],
  tokensToFree: number,
  edits: Map<string, Edit>,
  ctx: LayerContext,
): number {
  const runs = new Map<string, Candidate[]>();
  let freed = 0;
  for (const c of oldest) {
    if (freed >= tokensToFree) break;
    const now = edits.get(c.block.meta.id)?.tokens ?? c.tokens;
    const run = runs.get(c.message) ?? [];
    if (run.length === 0) runs.set(c.message, run);
    run.push(c);
    edits.set(c.block.meta.id, { block: null, tokens: 0, role: 'user' });
    freed += now - (run.length === 1 ? DROP_MARKER_TOKENS : 0);
  }
  let count = 0;
  for (const run of runs.values()) {
    const first = run[0] as Candidate;
    const marker = dropMarker(run);
    edits.set(first.block.meta.id, { block: marker, tokens: blockTokens(marker, first.turn, ctx), role: 'user' });
    count += run.length;
  }
  return count;
}

/** About what one drop marker takes, for the running count (the record has the exact figures). */
const DROP_MARKER_TOKENS = 60;

/**
 * What the guard may cut: `large`, largest first (among equals the oldest) — assistant text and
 * calls of at least {@link TAIL_GUARD_MIN_TOKENS}, the user's messages before the newest longer
 * than {@link TAIL_GUARD_MIN_USER_CHARS}; `older`, oldest first — every message of the user
 * before the newest still longer than twice {@link TAIL_GUARD_STUB_CHARS}. In both, the user's
 * first message (which usually states the task) comes last. Never a pinned block.
 */
function candidatesOf(
  state: ConversationState,
  ctx: LayerContext,
  wordsOnly: boolean,
): { large: Candidate[]; older: Candidate[]; oldest: Candidate[] } {
  // The user's newest words (the request being answered) are never cut.
  const newestWords = newestWordsIndex(state.messages);
  const large: Candidate[] = [];
  const older: Candidate[] = [];
  const oldest: Candidate[] = [];
  state.messages.forEach((m, i) => {
    for (const b of m.blocks) {
      if (b.meta.pinned) continue;
      if (m.role === 'assistant' && (b.type === 'text' || b.type === 'tool_use')) {
        if (wordsOnly) continue;
        const tokens = blockTokens(b, m.turn, ctx);
        if (tokens >= TAIL_GUARD_MIN_TOKENS)
          large.push({ block: b, role: m.role, turn: m.turn, tokens, message: m.id });
      } else if (i < newestWords && b.type === 'text' && isUserWords(b) && !isDropMarker(b)) {
        const c = { block: b, role: m.role, turn: m.turn, tokens: blockTokens(b, m.turn, ctx), message: m.id };
        oldest.push(c);
        if (!cuttableToStub(b)) continue;
        older.push(c);
        if (b.text.length > TAIL_GUARD_MIN_USER_CHARS) large.push(c);
      }
    }
  });
  // The first message of the user usually states the task: it goes last in either order,
  // and it is never left out.
  // (The first block of them: after a summary, one message holds the words of many turns.)
  const firstWords = state.messages.flatMap((m) => m.blocks).find(isUserWords);
  const task = (c: Candidate) => (c.block === firstWords ? 1 : 0);
  large.sort((a, b) => task(a) - task(b) || b.tokens - a.tokens);
  older.sort((a, b) => task(a) - task(b));
  return { large, older, oldest: oldest.filter((c) => task(c) === 0) };
}

/**
 * The sentence for the user: what was cut (`answerCut` assistant blocks, `userCut` of their
 * messages), how many of their messages were left out (`userDropped`), and what it freed.
 */
function guardNotice(answerCut: number, userCut: number, userDropped: number, freed: number): string {
  const end = `cut in the middle, about ${formatCount(freed)} tokens freed. The originals can be restored from the Compactions view.`;
  if (userDropped > 0) {
    const left =
      userDropped === 1 ? 'one earlier message of yours' : `${formatCount(userDropped)} earlier messages of yours`;
    const cut = userCut === 0 ? '' : `, ${userCut === 1 ? 'one more' : `${userCut} more`} cut in the middle`;
    return `Your own words alone were more than the context window leaves (compaction keeps them all): the oldest ${left} ${userDropped === 1 ? 'was' : 'were'} left out${cut}, about ${formatCount(freed)} tokens freed. They can be restored from the Compactions view, and Claude can read them with \`recall\`.`;
  }
  if (userCut === 0) {
    const what = answerCut === 1 ? 'one large block' : `${answerCut} large blocks`;
    return `The newest messages alone were more than the context window leaves: ${what} (a tool call's input or an answer) ${end}`;
  }
  const yours = userCut === 1 ? 'one long earlier message of yours' : `${userCut} long earlier messages of yours`;
  const theirs =
    answerCut === 0 ? '' : ` and ${answerCut === 1 ? 'one large block' : `${answerCut} large blocks`} of Claude's`;
  return `What compaction always keeps — your own words and the newest messages — was more than the context window leaves: ${yours}${theirs} ${end}`;
}

/** A tail-guard step's outcome, in the shape of a compaction run's parts. */
export interface TailGuardStep {
  readonly state: ConversationState;
  readonly records: readonly CompactionRecord[];
  readonly notices: readonly string[];
}

/**
 * The share of the effective window from which the guard may act: the hard threshold, where
 * a request that even the planned compaction leaves there would be compacted again on every
 * request — a loop only cutting the user's words can end, since every compaction keeps them —
 * or, under a server strategy, {@link HARD_WAIT_LIMIT}: there the estimate still counts what
 * the server will clear, so it runs high. Assistant blocks are cut only from
 * {@link HARD_WAIT_LIMIT}: below it a later summary may still take them whole.
 */
export function tailGuardLimit(config: PipelineConfig, settings: CompactionSettings): number {
  return isServerStrategy(settings.strategy) ? HARD_WAIT_LIMIT : config.hardThreshold;
}

/**
 * The compactor's use of the guard: when a request for `state` is expected to come to
 * `expectedTokens` (after the compaction planned, or as it stands) and that is at or past
 * {@link HARD_WAIT_LIMIT} of the effective window, cut what is over the hard target
 * (`expectedTokens` less it) and {@link TAIL_GUARD_DEPTH_SHARE} more; from
 * {@link tailGuardLimit} on, the user's older long messages only. Otherwise, or when nothing
 * can be cut, `state` as it is.
 */
export function tailGuardStep(
  state: ConversationState,
  expectedTokens: number,
  deps: { readonly settings: CompactionSettings; readonly ctx: LayerContext },
): TailGuardStep {
  const none = { state, records: [], notices: [] };
  const eff = effectiveWindow(state.config);
  if (expectedTokens < tailGuardLimit(state.config, deps.settings) * eff) return none;
  const wordsOnly = expectedTokens < HARD_WAIT_LIMIT * eff;
  const depth = TAIL_GUARD_DEPTH_SHARE * eff;
  const needed = Math.ceil(expectedTokens - hardTargetTokens(state.config, deps.settings));
  const r = guardTail(state, deps.ctx, Math.ceil(needed + depth), { wordsOnly, needed });
  return r.record && r.notice ? { state: r.state, records: [r.record], notices: [r.notice] } : none;
}
