import type { BudgetPinnedRow, BudgetToHost } from '../../protocol/budget';
import { el, formatTokens } from '../shared/dom';
import { section, table } from './ui';

/** What a pinned region is: who said it and its first line, or the file and lines of a selection. */
function what(r: BudgetPinnedRow): HTMLElement {
  const who = r.role === 'user' ? 'You' : 'Claude';
  if (r.kind === 'message') {
    return el(
      'div',
      { class: 'pin-what' },
      el('span', { class: 'pin-kind' }, `${who} · turn ${r.turn} · whole message`),
      el('span', { class: 'pin-preview', title: r.preview }, r.preview || '(no text)'),
    );
  }
  return el(
    'div',
    { class: 'pin-what' },
    el('span', { class: 'pin-kind' }, el('code', {}, r.label), ` · in your message of turn ${r.turn}`),
    el('span', { class: 'pin-preview code', title: r.preview }, r.preview || '(empty)'),
  );
}

/**
 * The Pinned card: every pinned message or block (never compacted) with its tokens and an
 * Unpin button, which posts `unpin` and waits for the next snapshot; or, when nothing is
 * pinned, a sentence on how to pin.
 */
export function pinnedSection(rows: readonly BudgetPinnedRow[], post: (m: BudgetToHost) => void): HTMLElement {
  if (rows.length === 0) {
    return section(
      'Pinned',
      'budget-pinned',
      el(
        'p',
        { class: 'muted', 'data-testid': 'pinned-empty' },
        "Nothing pinned. Pin a message in the chat (its Pin button) or use Pin Selection (the editor's context menu, or /pin in the chat) to send code along; pinned content is never compacted.",
      ),
    );
  }
  const total = rows.reduce((a, r) => a + r.tokens, 0);
  const t = table(
    ['Pinned', 'Tokens', ''],
    rows.map((r) => [
      what(r),
      formatTokens(r.tokens),
      el(
        'button',
        {
          type: 'button',
          'data-testid': 'unpin',
          'data-kind': r.kind,
          'data-id': r.id,
          title: 'Unpin: compaction may summarise this again',
        },
        'Unpin',
      ),
    ]),
    { class: 'pinned', 'data-testid': 'pinned-table' },
  );
  t.querySelectorAll('tbody tr').forEach((tr, i) => {
    const r = rows[i];
    if (!r) return;
    tr.setAttribute('data-testid', 'pinned-row');
    tr.setAttribute('data-kind', r.kind);
    tr.setAttribute('data-id', r.id);
  });
  t.addEventListener('click', (ev) => {
    const b = (ev.target as HTMLElement).closest('button[data-testid="unpin"]');
    const kind = b?.getAttribute('data-kind');
    const id = b?.getAttribute('data-id');
    if (!(b instanceof HTMLButtonElement) || !id || (kind !== 'message' && kind !== 'block')) return;
    b.disabled = true;
    b.textContent = 'Unpinning…';
    post({ type: 'unpin', kind, id });
  });
  return section(
    `Pinned — ${rows.length} ${rows.length === 1 ? 'region' : 'regions'}, ${formatTokens(total)} tokens, never compacted`,
    'budget-pinned',
    t,
  );
}
