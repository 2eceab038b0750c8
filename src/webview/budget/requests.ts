/** The panel's request history card: the chart and the table of the newest requests. */
import type { BudgetSnapshot } from '../../protocol/budget';
import { el, formatTokens } from '../shared/dom';
import { HistoryChart } from './chart';
import { requestsTotalText } from './requestsTotal';
import { serverCell } from './serverText';
import { pct, section, table, usd } from './ui';

/** The tooltip of a request cut off mid-answer. */
const CUT_TITLE =
  'Cut off before its answer ended (Stop, or the connection dropped): counted for the prompt the API reported and the output that had arrived (~: estimated).';

/** One chart for the panel's life: re-renders move it and feed it data (no flicker, hover kept). */
const chart = new HistoryChart();

/** Why the cache missed on a request, one line (the API's diagnosis is marked), or empty. */
function cacheMissText(m: BudgetSnapshot['requests'][number]['cacheMiss']): string {
  if (!m) return '';
  const tokens = m.missedTokens > 0 ? ` · ${formatTokens(m.missedTokens)} missed` : '';
  return `${m.detail}${tokens}${m.source === 'api' ? ' (API)' : ''}`;
}

/** 3. Per-request history: chart and table. */
export function history(s: BudgetSnapshot): HTMLElement {
  if (s.requests.length === 0)
    return section('Requests', 'budget-history', el('p', { class: 'muted' }, 'No request in this session yet.'));
  chart.update(s.requests);
  const key = el(
    'div',
    { class: 'chart-key' },
    el('span', {}, el('span', { class: 'swatch marker' }), 'Compaction before the request'),
  );
  const rows = s.requests
    .slice(-20)
    .reverse()
    .map((r) => {
      const promptCell: string | Node =
        r.counted === undefined
          ? formatTokens(r.promptTokens)
          : el(
              'span',
              {},
              formatTokens(r.promptTokens),
              el(
                'span',
                {
                  class: 'badge exact',
                  title: `count_tokens measured ${formatTokens(r.counted)} tokens for this request before it was answered`,
                },
                `count_tokens ${formatTokens(r.counted)}`,
              ),
            );
      const name = `#${r.index}${r.compactedBefore ? ' ⟲' : ''}`;
      return [
        r.cut ? el('span', { title: CUT_TITLE }, name, el('span', { class: 'badge' }, 'cut off')) : name,
        promptCell,
        formatTokens(r.cacheRead),
        formatTokens(r.cacheWrite),
        r.cut ? `~${formatTokens(r.output)}` : formatTokens(r.output),
        pct(r.cacheRead, r.promptTokens),
        usd(r.costUsd),
        cacheMissText(r.cacheMiss),
        serverCell(r),
      ];
    });
  const agents = subagentsRow(s.subagents);
  return section(
    'Requests',
    'budget-history',
    chart.element,
    key,
    table(
      ['Request', 'Prompt', 'Cache read', 'Cache write', 'Output', 'Hit rate', 'Cost', 'Cache miss', 'Server'],
      agents ? [agents.cells, ...rows] : rows,
      { class: 'requests', 'data-testid': 'requests-table' },
    ),
    el('p', { class: 'muted' }, requestsTotalText(s, agents)),
  );
}

/**
 * The Subagents row: every subagent's requests summed (they are billed to the session but are
 * not its requests, so they are not in the chart); its title lists each subagent. Undefined
 * when none ran.
 */
function subagentsRow(
  runs: BudgetSnapshot['subagents'],
): { cells: (string | Node)[]; costUsd: number | null; count: number } | undefined {
  if (runs.length === 0) return undefined;
  const add = (k: 'promptTokens' | 'cacheRead' | 'cacheWrite' | 'output' | 'requests') =>
    runs.reduce((n, r) => n + r[k], 0);
  const costUsd = runs.reduce<number | null>((a, r) => (a === null || r.costUsd === null ? null : a + r.costUsd), 0);
  const prompt = add('promptTokens');
  const each = runs
    .map(
      (r) =>
        `Turn ${r.turn} · ${r.description} · ${r.state} · ${r.requests} ${r.requests === 1 ? 'request' : 'requests'} · ${usd(r.costUsd)}`,
    )
    .join('\n');
  const label = el(
    'span',
    { class: 'subagents-label', title: each, 'data-testid': 'subagents-row' },
    `Subagents ×${runs.length}`,
  );
  return {
    count: runs.length,
    costUsd,
    cells: [
      label,
      el(
        'span',
        {
          title: `The prompt tokens of all ${add('requests')} subagent requests together (each subagent's own context, not this session's)`,
          'data-testid': 'subagents-prompt',
        },
        `${formatTokens(prompt)} in ${add('requests')} ${add('requests') === 1 ? 'request' : 'requests'}`,
      ),
      formatTokens(add('cacheRead')),
      formatTokens(add('cacheWrite')),
      formatTokens(add('output')),
      pct(add('cacheRead'), prompt),
      usd(costUsd),
      '',
      '',
    ],
  };
}
