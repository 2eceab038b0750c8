/**
 * The request preview as a read-only document in an editor tab: the one-line summary first
 * (tokens, the input's cost estimate, the prompt cache hit expected), then the share of the
 * window, the notes, the ledger of blocks and the cache breakpoints. Plain text (no `vscode`),
 * so it is unit-tested; `previewDocument.ts` shows it.
 */
import type { ChatToWebview } from '../protocol/chat';

/** A preview that was built (an error result is said in the chat, not in a tab). */
export type PreviewOk = Extract<ChatToWebview, { type: 'previewResult'; ok: true }>;

/** Characters of a block's preview a ledger row shows. */
const ROW_PREVIEW_CHARS = 80;

/** The document's Markdown: `summary` on its first line, then the figures and the ledger. */
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
    '| # | Block | Source | Tokens |',
    '| ---: | --- | --- | ---: |',
    ...p.rows.map(
      (r) =>
        `| ${r.position} | ${cell(`${r.role} · ${r.kind}${r.breakpoint ? ' · cache breakpoint after' : ''}`)}: ${cell(clip(r.preview))} | ${cell(r.source)} | ${fmt(r.tokens)} |`,
    ),
    '',
    p.breakpoints.length > 0
      ? `Cache breakpoints: ${p.breakpoints.map((b) => `${b.label} (${fmt(b.prefixTokens)} tokens, p≈${b.hitProbability}: ${b.reason})`).join('; ')}.`
      : 'No cache breakpoint: the prompt is shorter than the model caches.',
    ...(p.spilledTo ? ['', `The paste would be saved to ${p.spilledTo}.`] : []),
    '',
  ].join('\n');
}

/** Text for one table cell: on one line, its pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= ROW_PREVIEW_CHARS ? flat : `${flat.slice(0, ROW_PREVIEW_CHARS - 1)}…`;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
