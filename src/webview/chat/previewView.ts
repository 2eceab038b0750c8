import type { ChatToWebview, LedgerRow } from '../../protocol/chat';
import { el, formatTokens } from '../shared/dom';

type PreviewResult = Extract<ChatToWebview, { type: 'previewResult' }>;

/** Renders a request preview: total, meter, notes, the block ledger and the cache breakpoints. */
export function renderPreview(message: PreviewResult, onClose: () => void): HTMLElement {
  const close = el('button', { class: 'link', type: 'button', 'aria-label': 'Close the preview' }, 'Close');
  close.addEventListener('click', onClose);
  const box = el('section', { class: 'preview', 'data-testid': 'preview' });
  if (!message.ok) {
    box.append(el('p', { class: 'error', role: 'alert' }, message.error), close);
    return box;
  }
  const pct = (100 * message.estimatedTokens) / message.contextWindow;
  const bar = el('div', {
    class: 'bar',
    role: 'meter',
    'aria-valuenow': String(message.estimatedTokens),
    'aria-valuemax': String(message.contextWindow),
  });
  const fill = el('span', { class: 'fill' });
  // CSSOM, not a style attribute: the CSP forbids inline style attributes.
  fill.style.width = `${Math.min(100, pct).toFixed(2)}%`;
  bar.append(fill);
  box.append(
    el(
      'div',
      { class: 'preview-head' },
      el(
        'p',
        { class: 'total' },
        `Preview: ≈ ${formatTokens(message.estimatedTokens)} tokens (${pct.toFixed(1)}% of the window)`,
      ),
      close,
    ),
    el('p', { class: 'summary' }, message.summary),
    bar,
    ...message.notes.map((n) => el('p', { class: 'note' }, n)),
    el(
      'table',
      { class: 'ledger' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', {}, '#'),
          el('th', {}, 'Block'),
          el('th', {}, 'Source'),
          el('th', { class: 'num' }, 'Tokens'),
        ),
      ),
      el('tbody', {}, ...message.rows.map(rowView)),
    ),
    message.breakpoints.length
      ? el(
          'p',
          { class: 'note' },
          `Cache breakpoints: ${message.breakpoints.map((b) => `${b.label} (${formatTokens(b.prefixTokens)} tokens, p≈${b.hitProbability}, kept ${b.ttl === '1h' ? '1 hour' : '5 minutes'})`).join('; ')}`,
        )
      : el('p', { class: 'note' }, 'No cache breakpoint: the prompt is shorter than the model caches.'),
  );
  return box;
}

function rowView(row: LedgerRow): HTMLTableRowElement {
  const kept = row.breakpointTtl === '1h' ? ', kept 1 hour' : row.breakpointTtl === '5m' ? ', kept 5 minutes' : '';
  const tr = el('tr', row.breakpoint ? { class: 'breakpoint', title: `cache breakpoint after this block${kept}` } : {});
  tr.append(
    el('td', {}, String(row.position)),
    el(
      'td',
      {},
      el('div', { class: 'kind' }, `${row.role} · ${row.kind}`),
      el('div', { class: 'preview-text' }, row.preview),
    ),
    el('td', {}, row.source),
    el('td', { class: 'num' }, formatTokens(row.tokens)),
  );
  return tr;
}
