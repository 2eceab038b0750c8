import { parseBudgetToWebview, type BudgetSnapshot, type BudgetToHost } from '../../protocol/budget';
import { el, formatTokens } from '../shared/dom';
import { ledgerServerNote, serverCell } from './serverText';
import { vscodeApi } from '../shared/vscodeApi';
import { HistoryChart } from './chart';
import { pinnedSection } from './pinned';
import { section, table } from './ui';

const api = vscodeApi<Record<string, never>>();
const post = (m: BudgetToHost) => api.postMessage(m);
const root = document.getElementById('app') as HTMLElement;

const pct = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : '–');
/** How the header names where the window came from. */
const WINDOW_SOURCE = {
  setting: 'from your setting',
  'models-api': 'from the Models API',
  table: 'from the model table',
  assumed: 'assumed: unknown model',
} as const;

/** A cost, or `—` when the model's price is unknown. */
const usd = (n: number | null) => (n === null ? '—' : `$${n.toFixed(4)}`);

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
function windowBar(s: BudgetSnapshot): HTMLElement {
  const window = Math.max(1, s.contextWindow);
  const used = s.categories.reduce((a, c) => a + c.tokens, 0);
  const free = Math.max(0, s.contextWindow - s.outputReserve - used);
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
  const effective = Math.max(1, s.contextWindow - s.outputReserve);
  for (const [name, f] of [
    ['soft', s.softThreshold],
    ['hard', s.hardThreshold],
  ] as const) {
    const at = (f * effective) / window;
    const mark = el('div', {
      class: `threshold ${name}`,
      title: `${name === 'soft' ? 'Soft' : 'Hard'} threshold: ${formatTokens(f * effective)} tokens (${Math.round(f * 100)} % of window − reserve)`,
      'data-testid': `threshold-${name}`,
    });
    mark.style.left = `${100 * at}%`;
    bar.append(mark);
  }
  const next = s.nextCompaction;
  if (next) {
    const mark = el('div', {
      class: 'threshold next',
      title: `Next compaction: at ${formatTokens(next.atTokens)} tokens — ${next.reason}`,
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
    `Next request (the conversation so far): ${formatTokens(used)} tokens`,
    ...exactBadge(s),
    ` — ${formatTokens(s.nextTotal)} in its blocks, the rest framing and the API's tool prompt, ${anchorPhrase(s.nextAnchor)} — ${pct(used, effective)} of window − reserve (${formatTokens(effective)}). Soft ${Math.round(s.softThreshold * 100)} %, hard ${Math.round(s.hardThreshold * 100)} %.`,
  );
  summary.setAttribute('data-testid', 'next-estimate');
  summary.setAttribute('data-tokens', String(used));
  return section('Context window', 'budget-window', bar, summary, legend);
}

/** 2. Estimated vs reported of the last request, and the calibration in use. */
function accuracy(s: BudgetSnapshot): HTMLElement {
  const calib = `Calibration: ${s.tokenizer} × ${s.calibration.toFixed(3)}.`;
  if (!s.last)
    return section('Estimate vs reported', 'budget-accuracy', el('p', { class: 'muted' }, `No request yet. ${calib}`));
  const err = s.last.reported > 0 ? (100 * (s.last.estimated - s.last.reported)) / s.last.reported : 0;
  return section(
    'Estimate vs reported',
    'budget-accuracy',
    el(
      'p',
      {},
      `Last request: estimated ${formatTokens(s.last.estimated)}, reported ${formatTokens(s.last.reported)} — error ${err >= 0 ? '+' : ''}${err.toFixed(1)} %.`,
    ),
    el('p', { class: 'muted' }, calib),
  );
}

/** One chart for the panel's life: re-renders move it and feed it data (no flicker, hover kept). */
const chart = new HistoryChart();

/** Why the cache missed on a request, one line (the API's diagnosis is marked), or empty. */
function cacheMissText(m: BudgetSnapshot['requests'][number]['cacheMiss']): string {
  if (!m) return '';
  const tokens = m.missedTokens > 0 ? ` · ${formatTokens(m.missedTokens)} missed` : '';
  return `${m.detail}${tokens}${m.source === 'api' ? ' (API)' : ''}`;
}

/** 3. Per-request history: chart and table. */
function history(s: BudgetSnapshot): HTMLElement {
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
      const prompt = r.input + r.cacheRead + r.cacheWrite;
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
      return [
        `#${r.index}${r.compactedBefore ? ' ⟲' : ''}`,
        promptCell,
        formatTokens(r.cacheRead),
        formatTokens(r.cacheWrite),
        formatTokens(r.output),
        pct(r.cacheRead, prompt),
        usd(r.costUsd),
        cacheMissText(r.cacheMiss),
        serverCell(r),
      ];
    });
  const total = s.requests.reduce<number | null>(
    (a, r) => (a === null || r.costUsd === null ? null : a + r.costUsd),
    0,
  );
  return section(
    'Requests',
    'budget-history',
    chart.element,
    key,
    table(
      ['Request', 'Prompt', 'Cache read', 'Cache write', 'Output', 'Hit rate', 'Cost', 'Cache miss', 'Server'],
      rows,
      { class: 'requests', 'data-testid': 'requests-table' },
    ),
    el(
      'p',
      { class: 'muted' },
      `${s.requests.length} ${s.requests.length === 1 ? 'request' : 'requests'}, ${usd(total)} in this session (newest first, at most 20 listed).`,
    ),
  );
}

/** 4. The last request's ledger and its diff against the one before. */
function ledger(s: BudgetSnapshot): HTMLElement {
  if (s.ledger.length === 0)
    return section(
      'Last request',
      'budget-ledger',
      el(
        'p',
        { class: 'muted' },
        s.requests.length > 0
          ? 'No request since the session was opened: the ledger of a request is kept only while the window is open.'
          : 'No request yet.',
      ),
    );
  const rows = s.ledger.map((r) => [
    String(r.position),
    `${r.role} · ${r.kind}${r.repair !== undefined ? ' · repaired' : ''}`,
    r.origin !== undefined ? `${r.source} · ${r.origin}` : r.source,
    formatTokens(r.tokens),
    r.breakpoint ? '◆' : '',
    el(
      'span',
      { class: 'preview', title: r.repair !== undefined ? `${r.repair}\n\n${r.preview}` : r.preview },
      r.preview,
    ),
  ]);
  const parts: Node[] = [];
  if (s.repairs)
    parts.push(
      el(
        'p',
        { class: 'repairs', 'data-testid': 'ledger-repairs', title: s.repairs.details.join('\n') },
        s.repairs.summary,
      ),
    );
  parts.push(
    table(['#', 'Block', 'Source', 'Tokens', 'Cache', 'Content'], rows, {
      class: 'ledger',
      'data-testid': 'ledger-table',
    }),
  );
  const cleared = ledgerServerNote(s.requests.at(-1));
  if (cleared) parts.push(el('p', { class: 'muted', 'data-testid': 'ledger-server-cleared' }, cleared));
  const d = s.diff;
  if (d) {
    const diffRows = [
      ...d.added.map((r) => ['+ added', r.label, '', formatTokens(r.after)]),
      ...d.removed.map((r) => ['− removed', r.label, formatTokens(r.before), '']),
      ...d.changed.map((r) => ['~ changed', r.label, formatTokens(r.before), formatTokens(r.after)]),
    ];
    parts.push(
      el(
        'h3',
        {},
        `Against the request before: ${d.added.length} added, ${d.removed.length} removed, ${d.changed.length} changed`,
      ),
    );
    if (diffRows.length > 0)
      parts.push(table(['', 'Block', 'Before', 'After'], diffRows, { class: 'diff', 'data-testid': 'ledger-diff' }));
  }
  return section(`Last request — ${s.ledger.length} blocks (◆ cache breakpoint)`, 'budget-ledger', ...parts);
}

/** 5. Compactions, newest first, with Restore. */
function compactions(s: BudgetSnapshot): HTMLElement {
  if (s.compactions.length === 0)
    return section(
      'Compactions',
      'budget-compactions',
      el('p', { class: 'muted' }, 'No compaction in this session yet.'),
    );
  const rows = s.compactions.map((c) => {
    const action: Node = c.active
      ? el('button', { type: 'button', 'data-restore': c.id, title: 'Put the original messages back' }, 'Restore')
      : el('span', { class: 'muted' }, 'restored');
    // What the retention check says the summary lost: the count, expanding to the identifiers.
    const lost: Node =
      c.lost === 0
        ? el('span', { class: 'muted' }, 'none')
        : el(
            'details',
            { class: 'lost', 'data-testid': 'lost-ids', 'data-key': `lost-${c.id}` },
            el(
              'summary',
              { title: 'Identifiers of the originals the summary does not mention (a heuristic check)' },
              `${c.lost} lost`,
            ),
            el('ul', {}, ...c.lostIds.map((id) => el('li', {}, el('code', {}, id)))),
            ...(c.lost > c.lostIds.length
              ? [el('div', { class: 'muted' }, `… and ${c.lost - c.lostIds.length} more`)]
              : []),
          );
    return [
      new Date(c.at).toLocaleTimeString(),
      c.trigger,
      c.layer,
      `${formatTokens(c.tokensBefore)} → ${formatTokens(c.tokensAfter)}`,
      usd(c.costUsd),
      lost,
      action,
    ];
  });
  const t = table(['When', 'Trigger', 'Layer', 'Tokens', 'Cost', 'Retention', ''], rows, { class: 'compactions' });
  t.addEventListener('click', (ev) => {
    const b = (ev.target as HTMLElement).closest('button[data-restore]');
    const id = b?.getAttribute('data-restore');
    if (id) post({ type: 'restore', id });
  });
  return section('Compactions (last 10)', 'budget-compactions', t);
}

/** 6. Forecast of the turns left before the soft threshold. */
function forecast(s: BudgetSnapshot): HTMLElement {
  const f = s.forecast;
  const text = f.past
    ? `Already past the soft threshold (${formatTokens(f.limit)} tokens): the next request compacts or proposes compaction.`
    : f.turns !== undefined
      ? `≈ ${f.turns} ${f.turns === 1 ? 'turn' : 'turns'} until the soft threshold (${formatTokens(f.limit)} tokens), at ${formatTokens(f.growthPerTurn)} tokens per turn on average.`
      : `Not enough turns yet to forecast when the soft threshold (${formatTokens(f.limit)} tokens) is reached.`;
  const next = s.nextCompaction;
  if (!next) return section('Forecast', 'budget-forecast', el('p', {}, text));
  const what =
    next.action === 'mask'
      ? 'clears older tool results'
      : next.action === 'summarise'
        ? 'summarises older history'
        : undefined;
  const where =
    next.keepsFromTurn !== undefined
      ? ` It keeps the newest ${formatTokens(next.keptTokens)} tokens (from turn ${next.keepsFromTurn}) verbatim; your own words are always kept.`
      : '';
  const payback =
    next.paybackRequests !== undefined && next.action !== 'none'
      ? ` Pays back its prompt-cache rewrite in about ${Math.max(1, Math.ceil(next.paybackRequests))} requests.`
      : '';
  const plan = el(
    'p',
    { 'data-testid': 'next-compaction', 'data-action': next.action },
    what
      ? `Next request ${what}: ${formatTokens(next.atTokens)} → about ${formatTokens(next.expectedAfter)} tokens. ${next.reason}${where}${payback}`
      : `Next compaction: at about ${formatTokens(next.atTokens)} tokens (marked on the bar). ${next.reason}${where}`,
  );
  return section('Forecast', 'budget-forecast', el('p', {}, text), plan);
}

/** A warning from the host (e.g. an Unpin that was refused), shown for a while above the cards. */
let notice: { level: 'info' | 'warning'; text: string; until: number } | undefined;
let last: BudgetSnapshot | undefined;
const NOTICE_MS = 10_000;

let lastJson = '';
let lastBanner = false;

/**
 * Draws a snapshot. An identical snapshot (the host posts on every event, throttled) changes
 * nothing, so what the user expanded or selected stays; otherwise the cards are rebuilt and
 * the <details> the user had open (by their data-key) are opened again.
 */
function render(s: BudgetSnapshot): void {
  const json = JSON.stringify(s);
  const showBanner = notice !== undefined && Date.now() < notice.until;
  if (json === lastJson && showBanner === lastBanner && !showBanner) return;
  lastJson = json;
  lastBanner = showBanner;
  last = s;
  const open = new Set(Array.from(root.querySelectorAll('details[open][data-key]'), (d) => d.getAttribute('data-key')));
  const header = el(
    'header',
    { class: 'header' },
    el('h1', {}, 'Context Budget'),
    el(
      'span',
      { class: 'muted' },
      `${s.session} · ${s.model} · window ${formatTokens(s.contextWindow)}${s.windowSource ? ` (${WINDOW_SOURCE[s.windowSource]})` : ''}${s.busy ? ' · turn running…' : ''}`,
    ),
  );
  const banner =
    notice && Date.now() < notice.until
      ? [el('p', { class: `notice ${notice.level}`, role: 'alert', 'data-testid': 'budget-notice' }, notice.text)]
      : [];
  root.replaceChildren(
    header,
    ...banner,
    windowBar(s),
    el('div', { class: 'grid2' }, accuracy(s), forecast(s)),
    pinnedSection(s.pinned, post),
    history(s),
    ledger(s),
    compactions(s),
  );
  for (const d of root.querySelectorAll<HTMLDetailsElement>('details[data-key]'))
    if (open.has(d.getAttribute('data-key'))) d.open = true;
}

window.addEventListener('message', (ev: MessageEvent<unknown>) => {
  const parsed = parseBudgetToWebview(ev.data);
  if (!parsed.ok) {
    console.warn(`Context Pipeline: dropped a malformed message from the host: ${parsed.error}`);
    return;
  }
  const m = parsed.value;
  if (m.type === 'snapshot') render(m);
  else if (m.type === 'empty') {
    lastJson = '';
    root.replaceChildren(el('p', { class: 'muted', 'data-testid': 'budget-empty' }, m.reason));
  } else {
    notice = { level: m.level, text: m.text, until: Date.now() + NOTICE_MS };
    if (last) render(last);
  }
});

root.replaceChildren(el('p', { class: 'muted' }, 'Loading…'));
post({ type: 'ready' });
