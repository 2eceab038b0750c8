/**
 * The panel's first card: the window as a stacked bar (next request by category, free space,
 * output reserve) with the thresholds marked where the host's `pressure` puts them, a key to
 * the marks, and the one "% full" of the usable window (`pressure.fullness`).
 */
import type { BudgetSnapshot } from '../../protocol/budget';
import { el, formatTokens } from '../shared/dom';
import { hardMarkTitle, markLegend, nextMarkTitle, softMarkTitle } from '../shared/windowMarks';
import { pct, section, table } from './ui';

/** What the next-request figure builds on, in words. */
function anchorPhrase(anchor: BudgetSnapshot['nextAnchor']): string {
  if (!anchor) return 'not anchored yet (a calibrated count until the API measures a request)';
  return anchor.source === 'count_tokens'
    ? 'anchored on an exact count_tokens figure'
    : 'anchored on the last reported usage';
}

/** A small badge after the next-request figure when it comes from count_tokens: exact when nothing was added since. */
function exactBadge(s: BudgetSnapshot): HTMLElement[] {
  const a = s.nextAnchor;
  if (a?.source !== 'count_tokens') return [];
  const exact = a.tokens === s.nextEstimate;
  const title = exact
    ? `count_tokens measured this prompt: ${formatTokens(a.tokens)} tokens`
    : `Built on the ${formatTokens(a.tokens)} tokens count_tokens measured, plus an estimate of what was added since`;
  return [
    el(
      'span',
      { class: 'badge exact', 'data-testid': 'exact-badge', title },
      exact ? 'exact (count_tokens)' : 'on count_tokens',
    ),
  ];
}

/** 1. The window as a stacked bar (next request by category, free space, output reserve) with the thresholds. */
export function windowBar(s: BudgetSnapshot): HTMLElement {
  const window = Math.max(1, s.contextWindow);
  const used = s.categories.reduce((a, c) => a + c.tokens, 0);
  const effective = s.pressure.effectiveWindow;
  const free = Math.max(0, effective - used);
  const parts = [
    ...s.categories.filter((c) => c.tokens > 0),
    { id: 'free', label: 'Free', tokens: free },
    { id: 'reserve', label: 'Output reserve', tokens: s.outputReserve },
  ];
  const bar = el('div', { class: 'bar', 'data-testid': 'budget-bar' });
  for (const p of parts) {
    const seg = el('div', {
      class: `seg cat-${p.id}${p.id !== 'free' && p.id !== 'reserve' ? ' used' : ''}`,
      'data-testid': 'bar-segment',
      'data-category': p.id,
      title: `${p.label}: ${formatTokens(p.tokens)} tokens (${pct(p.tokens, window)} of the window)`,
    });
    seg.style.width = `${(100 * p.tokens) / window}%`;
    bar.append(seg);
  }
  for (const [name, tokens, title] of [
    ['soft', s.pressure.softAt, softMarkTitle(s.pressure)],
    ['hard', s.pressure.hardAt, hardMarkTitle(s.pressure)],
  ] as const) {
    const mark = el('div', { class: `threshold ${name}`, title, 'data-testid': `threshold-${name}` });
    mark.style.left = `${(100 * tokens) / window}%`;
    bar.append(mark);
  }
  const next = s.nextCompaction;
  if (next) {
    const mark = el('div', {
      class: 'threshold next',
      title: nextMarkTitle(next.atTokens, next.reason),
      'data-testid': 'next-compaction-mark',
    });
    mark.style.left = `${(100 * Math.min(next.atTokens, effective)) / window}%`;
    bar.append(mark);
  }
  const legend = table(
    ['', 'Category', 'Tokens', '% of window'],
    parts.map((p) => [
      el('span', { class: `swatch cat-${p.id}` }),
      p.label,
      formatTokens(p.tokens),
      pct(p.tokens, window),
    ]),
    { class: 'legend', 'data-testid': 'budget-legend' },
  );
  legend.querySelectorAll('tbody tr').forEach((tr, i) => tr.setAttribute('data-category', parts[i]?.id ?? ''));
  const summary = el(
    'p',
    { class: 'muted' },
    `Next request (the conversation so far${s.engine?.ownsCompaction ? `; the engine “${s.engine.name}” picks what is sent` : ''}): ${formatTokens(used)} tokens`,
    ...exactBadge(s),
    `, ${s.pressure.fullness}. ${formatTokens(s.nextTotal)} tokens are in its blocks; the rest is framing and the API's tool prompt. It is ${anchorPhrase(s.nextAnchor)}.`,
  );
  summary.setAttribute('data-testid', 'next-estimate');
  summary.setAttribute('data-tokens', String(used));
  summary.setAttribute('data-level', s.pressure.level);
  return section('Context window', 'budget-window', bar, marksKey(s), summary, legend);
}

/** The key under the bar: what each mark means and where it is (the marks' titles say it in full). */
function marksKey(s: BudgetSnapshot): HTMLElement {
  const words = markLegend(s.pressure);
  const entry = (cls: string, text: string) =>
    el('span', { class: 'mark-key' }, el('span', { class: `swatch marker ${cls}` }), text);
  return el(
    'div',
    { class: 'chart-key marks-key', 'data-testid': 'marks-key' },
    entry('soft', words.soft),
    entry('hard', words.hard),
    ...(s.nextCompaction ? [entry('next', words.next)] : []),
  );
}
