/**
 * Snip: once the window is 60 % full, a file read (by any tool that reads: `read_file`,
 * `read`, `Read`, `view` …) that was read again later (or edited
 * successfully later) is stale; its result becomes a short placeholder. The tool_use stays,
 * so the model knows the file can be read again. Cheap, no LLM, one reversible record. Pure.
 */
import type { ConversationState, ToolResultContent } from '../conversation/conversationModel';
import { GUARD_DEFAULTS } from './guardDefaults';
import { classifyToolCall } from './toolKinds';
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

interface FileEvent {
  readonly order: number;
  readonly kind: 'read' | 'edit';
  readonly path: string;
  readonly turn: number;
  /** Lines read, inclusive (edits: the whole file). */
  readonly from: number;
  readonly to: number;
}

/**
 * The snip layer. At or above `snipUtilisation`, each older `read_file` result (not among the
 * newest `keepRecentResults` results, not pinned, not an error, not already a placeholder) is
 * replaced by {@link stalePlaceholder} when a later `read_file` of the same normalised path
 * covering at least the same lines succeeded, or a later `edit_file` of it succeeded; the
 * turn named is that of the latest such call — unless the result is already shorter than the
 * placeholder. Tool_use blocks and `isError` stay. No change:
 * the input state and no record; else one record of layer `snip`, trigger `budget`.
 */
export function snip(state: ConversationState, ctx: LayerContext): LayerResult {
  if (ctx.utilisation < GUARD_DEFAULTS.snipUtilisation) return { state };
  const events = toolResultSites(state.messages).flatMap((s) => {
    const e = fileEvent(s);
    return e ? [e] : [];
  });
  const edits = new Map<string, ToolResultContent>();
  for (const site of olderEditableResults(state.messages, GUARD_DEFAULTS.keepRecentResults)) {
    const read = fileEvent(site);
    if (!read || read.kind !== 'read' || isPlaceholder(site.block.content)) continue;
    const later = events.filter(
      (e) =>
        e.order > read.order && e.path === read.path && (e.kind === 'edit' || (e.from <= read.from && e.to >= read.to)),
    );
    const latest = later[later.length - 1];
    if (!latest) continue;
    const placeholder = stalePlaceholder(read.path, latest.turn, latest.kind);
    // Only when it saves something worth a cache rewrite: a result barely longer than the placeholder may even count more tokens.
    if (
      resultText(site.block.content).length > placeholder.length + SNIP_MIN_SAVING_CHARS ||
      hasImages(site.block.content)
    )
      edits.set(site.block.meta.id, placeholder);
  }
  return commitResultEdits(state, ctx, edits, { layer: 'snip', trigger: 'budget' });
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
