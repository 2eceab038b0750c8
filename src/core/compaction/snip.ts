/**
 * Snip: an older tool result that a later one supersedes is stale; it becomes a short
 * placeholder. The tool_use stays, so the model knows the call can be made again. Two kinds:
 * - a file read (by any tool that reads: `read_file`, `read`, `Read`, `view` …) that was read
 *   again later (covering the same lines) or edited successfully later;
 * - the output of a command, listing or search made again later with the very same input and
 *   answered without an error: the newer output is the current one (agents re-run their tests
 *   and `git status` as they work — on the replayed Claude Code sessions 20–34 % of the tool
 *   results' text was superseded by the same call made later).
 * It runs once the window is 60 % full when the cache has gone cold ({@link snip}), and rides
 * along a compaction on the messages that compaction makes the next request write again
 * anyway ({@link snipAfterCompaction}). Cheap, no LLM, one reversible record. Pure.
 */
import type { ConversationState, ToolResultContent, ToolUseBlock } from '../conversation/conversationModel';
import { GUARD_DEFAULTS } from './guardDefaults';
import { classifyToolCall, describeToolCall } from '../tools/toolKinds';
import {
  commitResultEdits,
  hasImages,
  isPlaceholder,
  olderEditableResults,
  resultText,
  STALE_PREFIX,
  toolResultSites,
  type LayerContext,
  type LayerResult,
  type ResultSite,
} from './layerContext';

/** Snip replaces a result only when it is at least this many characters longer than its placeholder. */
export const SNIP_MIN_SAVING_CHARS = 200;

/** A path as the model wrote it, normalised for comparison: `//` collapsed, leading `./` stripped. */
export function normalisePath(path: string): string {
  let p = path.replace(/\/{2,}/g, '/');
  while (p.startsWith('./')) p = p.slice(2);
  return p;
}

/** The placeholder of a stale read of `path`, superseded by a read (or edit) in turn `turn`. */
export function stalePlaceholder(path: string, turn: number, by: 'read' | 'edit' = 'read'): string {
  const what = by === 'read' ? 'read again later' : 'edited later';
  return `${STALE_PREFIX}${path} was ${what} (turn ${turn}); this older read was removed to save context.]`;
}

/** The placeholder of an older output of `call` (as describeToolCall words it), made again in turn `turn`. */
export function rerunPlaceholder(call: string, turn: number): string {
  return `${STALE_PREFIX}${call} was run again later (turn ${turn}); this older output was removed to save context.]`;
}

interface FileEvent {
  readonly order: number;
  readonly kind: 'read' | 'edit';
  readonly path: string;
  readonly turn: number;
  /** Lines read, inclusive (edits: the whole file). */
  readonly from: number;
  readonly to: number;
}

/** The latest call of each {@link callKey} answered without an error: its order and turn. */
type LatestRuns = ReadonlyMap<string, { readonly order: number; readonly turn: number }>;

/**
 * The snip layer. At or above `snipUtilisation`, each older result (not among the newest
 * `keepRecentResults` results, not pinned, not already a placeholder) that a later call
 * supersedes (see the module comment) is replaced by {@link stalePlaceholder} or
 * {@link rerunPlaceholder}, naming the turn of the latest such call — unless the result is
 * already shorter than the placeholder. Tool_use blocks and `isError` stay. No change: the
 * input state and no record; else one record of layer `snip`, trigger `budget`.
 */
export function snip(state: ConversationState, ctx: LayerContext): LayerResult {
  if (ctx.utilisation < GUARD_DEFAULTS.snipUtilisation) return { state };
  return snipFrom(state, ctx, 0);
}

/**
 * Snip riding along a compaction: `after` is `before` compacted, so the next request writes
 * the cached prompt again from the first message the compaction changed. Clearing stale
 * results from there on adds no rewrite of its own, so it runs whatever the utilisation — and
 * lowers what every later request reads and the next compaction writes again. Results before
 * that message are left alone (clearing them would rewrite more).
 */
export function snipAfterCompaction(
  before: ConversationState,
  after: ConversationState,
  ctx: LayerContext,
): LayerResult {
  const n = Math.min(before.messages.length, after.messages.length);
  let from = 0;
  while (from < n && before.messages[from] === after.messages[from]) from++;
  return from >= after.messages.length ? { state: after } : snipFrom(after, ctx, from);
}

/** Snip over the results at message index `from` and later. */
function snipFrom(state: ConversationState, ctx: LayerContext, from: number): LayerResult {
  const sites = toolResultSites(state.messages);
  const events = sites.flatMap((s) => {
    const e = fileEvent(s);
    return e ? [e] : [];
  });
  const latest = latestRuns(sites);
  const edits = new Map<string, ToolResultContent>();
  for (const site of olderEditableResults(state.messages, GUARD_DEFAULTS.keepRecentResults)) {
    if (site.messageIndex < from || isPlaceholder(site.block.content)) continue;
    const placeholder = staleRead(site, events) ?? staleRun(site, latest);
    // Only when it saves something worth a cache rewrite: a result barely longer than the placeholder may even count more tokens.
    if (
      placeholder !== undefined &&
      (resultText(site.block.content).length > placeholder.length + SNIP_MIN_SAVING_CHARS ||
        hasImages(site.block.content))
    )
      edits.set(site.block.meta.id, placeholder);
  }
  return commitResultEdits(state, ctx, edits, { layer: 'snip', trigger: 'budget' });
}

/** The placeholder of a read that a later read of the same lines, or a later edit, of its file supersedes. */
function staleRead(site: ResultSite, events: readonly FileEvent[]): string | undefined {
  const read = fileEvent(site);
  if (!read || read.kind !== 'read') return undefined;
  const later = events.filter(
    (e) =>
      e.order > read.order && e.path === read.path && (e.kind === 'edit' || (e.from <= read.from && e.to >= read.to)),
  );
  const latest = later[later.length - 1];
  return latest ? stalePlaceholder(read.path, latest.turn, latest.kind) : undefined;
}

/** The placeholder of a command, listing or search output that the same call made later supersedes. */
function staleRun(site: ResultSite, latest: LatestRuns): string | undefined {
  const key = site.use ? callKey(site.use) : undefined;
  const last = key === undefined ? undefined : latest.get(key);
  if (!site.use || !last || last.order <= site.useOrder) return undefined;
  return rerunPlaceholder(describeToolCall(site.use), last.turn);
}

/** {@link LatestRuns} of `sites`. */
function latestRuns(sites: readonly ResultSite[]): LatestRuns {
  const out = new Map<string, { order: number; turn: number }>();
  for (const s of sites) {
    const key = s.use && !s.block.isError ? callKey(s.use) : undefined;
    const seen = key === undefined ? undefined : out.get(key);
    if (key !== undefined && s.useTurn !== undefined && (!seen || seen.order < s.useOrder))
      out.set(key, { order: s.useOrder, turn: s.useTurn });
  }
  return out;
}

/**
 * What makes two calls of a command, listing or search "the same call": the tool's name and
 * its input with keys in order, less a `description` (Claude Code's Bash says in words what a
 * command is for; it does not change what runs). Undefined for other calls: an edit made twice
 * is two edits, and a read is matched by its file and lines.
 */
function callKey(use: ToolUseBlock): string | undefined {
  const kind = classifyToolCall(use).kind;
  if (kind !== 'run' && kind !== 'list' && kind !== 'search') return undefined;
  const input =
    typeof use.input === 'object' && use.input !== null ? { ...(use.input as Record<string, unknown>) } : {};
  delete input.description;
  return `${use.name}\u0000${JSON.stringify(canonical(input))}`;
}

/** `v` with every object's keys sorted (so key order does not make two inputs differ). */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, canonical(o[k])]),
  );
}

/** A successful file read or edit (recognised by what the tool does, not by our names), as a file event. */
function fileEvent(site: ResultSite): FileEvent | undefined {
  const use = site.use;
  if (!use || site.block.isError || site.useTurn === undefined) return undefined;
  const info = classifyToolCall(use);
  if ((info.kind !== 'read' && info.kind !== 'edit') || info.path === undefined) return undefined;
  const base = { order: site.useOrder, path: normalisePath(info.path), turn: site.useTurn };
  if (info.kind === 'edit') return { ...base, kind: 'edit', from: 1, to: Number.POSITIVE_INFINITY };
  const from = info.offset ?? 1;
  const limit = info.limit ?? GUARD_DEFAULTS.readDefaultLines;
  return { ...base, kind: 'read', from, to: from + limit - 1 };
}
