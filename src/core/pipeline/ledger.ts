import type { CacheAnchor } from '../cache/cacheAnchors';
import type { Block, CacheTtl, ConversationState } from '../conversation/conversationModel';
import { describeServerBlock } from '../conversation/serverTools';
import { NO_REPAIRS, type Repair } from '../normalize/normalize';
import type { Tokenizer } from '../platform/platformPorts';
import { headChars } from '../platform/text';
import { isSendableThinking } from '../models/thinking';
import { blockRawTokens, toolSchemaRawTokens, toolSearchRawTokens } from '../tokens/blockTokens';
import { applyCalibration, type Calibration } from '../tokens/calibration';
import { calibratedBlockTokens } from '../tokens/calibratedTokens';

/** One line of the request ledger: a block that is sent, in order. */
export interface LedgerEntry {
  /** 1-based position in the request (tools, then system, then message blocks). */
  readonly position: number;
  readonly role: 'tools' | 'system' | 'user' | 'assistant';
  /** Block type, or `tool schema`. */
  readonly kind: string;
  readonly source: string;
  /** Calibrated token estimate of this block. */
  readonly tokens: number;
  /** The start of its content, one line. */
  readonly preview: string;
  /** Whether a cache breakpoint sits on this block. */
  readonly breakpoint: boolean;
  /**
   * The breakpoint's lifetime and why it was chosen (when there is one and the anchors say), and
   * why the breakpoint is here at all (`where`: the anchor's reason, cacheAnchors.ts).
   */
  readonly ttl?: { readonly value: CacheTtl; readonly reason: string; readonly where?: string };
  readonly blockId?: string;
  /** The workspace file the block's content came from (project instructions), when it did. */
  readonly origin?: string;
  /** What normalize did to this block before sending, when it did something. */
  readonly repair?: string;
}

/** The one line saying what normalize repaired in a request (undefined when nothing). */
export { describeRepairs } from '../normalize/normalize';

const PREVIEW_CHARS = 160;

/**
 * Lists every block of the request in the order it is sent, with its source, its calibrated
 * token estimate and whether a cache breakpoint sits on it: what the user reads to know
 * exactly what the model sees. Blocks the serializer leaves out (unsigned thinking) are
 * left out here too. O(blocks), every count memoised.
 *
 * Pass the request's normalized state (`PreparedRequest.sent`) with its anchors, so the
 * anchors' message indices match; `repairs` (`PreparedRequest.repairs`) mark the rows of
 * the blocks normalize made or changed.
 */
export function buildLedger(
  state: ConversationState,
  anchors: readonly (CacheAnchor & { readonly ttl?: CacheTtl; readonly ttlReason?: string })[],
  tokenizer: Tokenizer,
  calibration: Calibration,
  repairs: readonly Repair[] = NO_REPAIRS,
): LedgerEntry[] {
  const rows: LedgerEntry[] = [];
  const repairOf = new Map<string, string>();
  for (const r of repairs)
    if (r.blockId !== undefined)
      repairOf.set(r.blockId, repairOf.has(r.blockId) ? `${repairOf.get(r.blockId)} ${r.detail}` : r.detail);
  const has = (at: 'tools' | 'system') => anchors.some((a) => a.target.at === at);
  const messageBreakpoints = new Set(
    anchors.flatMap((a) => (a.target.at === 'message' ? [a.target.messageIndex] : [])),
  );
  const ttlOf = (match: (a: CacheAnchor) => boolean): Partial<Pick<LedgerEntry, 'ttl'>> => {
    const a = anchors.find(match);
    return a?.ttl !== undefined ? { ttl: { value: a.ttl, reason: a.ttlReason ?? '', where: a.reason } } : {};
  };
  const cal = (raw: number) => Math.round(applyCalibration(calibration, { text: raw, fixed: 0 }));
  // A deferred tool costs nothing until a tool search references it; the search tool, which
  // serialize adds last when any tool is deferred, carries the tools' breakpoint then.
  const searched = state.tools.some((t) => t.deferLoading === true);
  state.tools.forEach((t, i) => {
    const deferred = t.deferLoading === true;
    rows.push({
      position: rows.length + 1,
      role: 'tools',
      kind: deferred ? 'tool schema · deferred' : 'tool schema',
      source: t.server !== undefined ? `mcp · ${t.server}` : 'built-in',
      tokens: deferred ? 0 : cal(toolSchemaRawTokens(t, tokenizer)),
      preview: oneLine(`${t.name}: ${t.description}`),
      breakpoint: !searched && i === state.tools.length - 1 && has('tools'),
      ...(!searched && i === state.tools.length - 1 ? ttlOf((a) => a.target.at === 'tools') : {}),
    });
  });
  if (searched)
    rows.push({
      position: rows.length + 1,
      role: 'tools',
      kind: 'tool search',
      source: 'api',
      tokens: cal(toolSearchRawTokens(tokenizer)),
      preview: 'tool_search_tool: finds the deferred tools (the API does not publish what its definition adds)',
      breakpoint: has('tools'),
      ...ttlOf((a) => a.target.at === 'tools'),
    });
  state.system.forEach((b, i) => {
    rows.push({
      position: rows.length + 1,
      role: 'system',
      kind: 'text',
      source: b.meta.source,
      tokens: cal(blockRawTokens(b, tokenizer)),
      preview: oneLine(b.text),
      breakpoint: i === state.system.length - 1 && has('system'),
      ...(i === state.system.length - 1 ? ttlOf((a) => a.target.at === 'system') : {}),
      blockId: b.meta.id,
      ...originOf(b),
      ...(repairOf.has(b.meta.id) ? { repair: repairOf.get(b.meta.id) } : {}),
    });
  });
  state.messages.forEach((m, mi) => {
    const sent = m.blocks.filter((b) => !(b.type === 'thinking' && !isSendableThinking(b)));
    const lastCacheable = findLastIndex(sent, (b) => b.type !== 'thinking');
    sent.forEach((b, bi) => {
      rows.push({
        position: rows.length + 1,
        role: m.role,
        kind: b.type,
        source: b.meta.source,
        tokens: calibratedBlockTokens(b, tokenizer, calibration),
        preview: oneLine(blockPreviewText(b)),
        breakpoint: messageBreakpoints.has(mi) && bi === lastCacheable,
        ...(messageBreakpoints.has(mi) && bi === lastCacheable
          ? ttlOf((a) => a.target.at === 'message' && a.target.messageIndex === mi)
          : {}),
        blockId: b.meta.id,
        ...originOf(b),
        ...(repairOf.has(b.meta.id) ? { repair: repairOf.get(b.meta.id) } : {}),
      });
    });
  });
  return rows;
}

/** A block's content as plain text for previews: text, thinking, a tool call as `name(input)`, a result's text, images named. */
export function blockPreviewText(b: Block): string {
  switch (b.type) {
    case 'text':
    case 'summary':
      return b.text;
    case 'thinking':
      return b.redactedData !== undefined ? '[redacted thinking]' : b.thinking;
    case 'tool_use':
      return `${b.name}(${JSON.stringify(b.input) ?? ''})`;
    case 'tool_result':
      return typeof b.content === 'string'
        ? b.content
        : b.content.map((p) => (p.type === 'text' ? p.text : `[image ${p.mediaType}]`)).join(' ');
    case 'image':
      return `[image ${b.mediaType}]`;
    case 'server_tool':
      return describeServerBlock(b);
  }
}

function originOf(b: Block): { origin?: string } {
  return b.meta.origin !== undefined ? { origin: b.meta.origin } : {};
}

function oneLine(s: string): string {
  const flat = headChars(s, PREVIEW_CHARS * 2)
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > PREVIEW_CHARS ? `${headChars(flat, PREVIEW_CHARS)}…` : flat;
}

function findLastIndex<T>(xs: readonly T[], p: (x: T) => boolean): number {
  for (let i = xs.length - 1; i >= 0; i--) if (p(xs[i] as T)) return i;
  return -1;
}
