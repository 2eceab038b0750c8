/**
 * The request preview as a read-only document in an editor tab: the one-line summary first
 * (tokens, the input's cost estimate, the prompt cache hit expected), then the share of the
 * window, the notes, the ledger of blocks and the cache breakpoints. Plain text (no `vscode`),
 * so it is unit-tested; `previewDocument.ts` shows it.
 */
import { headChars } from '../core/platform/text';
import type { ChatToWebview } from '../protocol/chat';

/** A preview that was built (an error result is said in the chat, not in a tab). */
export type PreviewOk = Extract<ChatToWebview, { type: 'previewResult'; ok: true }>;

/** Characters of a block's kind and opening words a ledger line shows (a line then fits ~80 columns). */
const ROW_PREVIEW_CHARS = 48;

/**
 * The document's Markdown: `summary` on its first line, then the share of the window, the
 * notes, the ledger as an aligned block (indented: Markdown's code block, so it reads as a
 * table in the editor and in a rendered view alike; a rule under each cache breakpoint) and
 * the breakpoints in words.
 */
export function previewDocumentText(p: PreviewOk): string {
  const pct = (100 * p.estimatedTokens) / p.contextWindow;
  return [
    p.summary,
    '',
    `# Request preview`,
    '',
    `${pct.toFixed(1)}% of the ${fmt(p.contextWindow)}-token window. Nothing was sent; Preview again to refresh.`,
    '',
    ...p.notes.map((n) => `- ${n}`),
    '',
    `## ${p.rows.length} blocks, in the order they are sent`,
    '',
    ...ledgerLines(p.rows),
    '',
    p.breakpoints.length > 0
      ? `Cache breakpoints: ${p.breakpoints.map((b) => `${b.label} (${fmt(b.prefixTokens)} tokens, p≈${b.hitProbability}: ${b.reason}; ${lifetimeWords(b.ttl)}: ${b.ttlReason})`).join('; ')}.`
      : 'No cache breakpoint: the prompt is shorter than the model caches.',
    ...(p.spilledTo ? ['', `The paste would be saved to ${p.spilledTo}.`] : []),
    '',
  ].join('\n');
}

/** A lifetime in words: `kept 1 hour`, `kept 5 minutes`. */
function lifetimeWords(ttl: '5m' | '1h'): string {
  return ttl === '1h' ? 'kept 1 hour' : 'kept 5 minutes';
}

/**
 * The ledger's lines, indented four spaces: `#`, tokens (right-aligned), source, then the
 * block's role and kind with its opening words; `── cache breakpoint ──` under a block the
 * cache breakpoint follows.
 */
function ledgerLines(rows: PreviewOk['rows']): string[] {
  const head = { position: '#', tokens: 'Tokens', source: 'Source' };
  const cells = rows.map((r) => ({
    position: String(r.position),
    tokens: fmt(r.tokens),
    source: flat(r.source),
    block: clip(`${r.role} · ${r.kind}: ${flat(r.preview)}`),
    breakpoint: r.breakpoint,
    ttl: r.breakpointTtl,
  }));
  const width = (k: keyof typeof head) => Math.max(head[k].length, ...cells.map((c) => c[k].length));
  const [wp, wt, ws] = [width('position'), width('tokens'), width('source')];
  const line = (c: { position: string; tokens: string; source: string }, block: string) =>
    `    ${c.position.padStart(wp)}  ${c.tokens.padStart(wt)}  ${c.source.padEnd(ws)}  ${block}`.trimEnd();
  return [
    line(head, 'Block'),
    ...cells.flatMap((c) => [
      line(c, c.block),
      ...(c.breakpoint
        ? [`    ${' '.repeat(wp + wt + 4)}── cache breakpoint${c.ttl ? ` · ${lifetimeWords(c.ttl)}` : ''} ──`]
        : []),
    ]),
  ];
}

/** Text on one line. */
function flat(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function clip(text: string): string {
  return text.length <= ROW_PREVIEW_CHARS ? text : `${headChars(text, ROW_PREVIEW_CHARS - 1)}…`;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
