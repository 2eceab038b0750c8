import { parseBudgetToWebview, type BudgetSnapshot, type BudgetToHost, type BudgetTools } from '../../protocol/budget';
import { el, formatTokens } from '../shared/dom';
import { forecastText } from './forecastText';
import { ledgerServerNote } from './serverText';
import { vscodeApi } from '../shared/vscodeApi';
import { history } from './requests';
import { pinnedSection } from './pinned';
import { section, table, usd } from './ui';
import { toolsSection } from './tools';
import { windowBar } from './windowBar';

const api = vscodeApi<Record<string, never>>();
const post = (m: BudgetToHost) => api.postMessage(m);
const root = document.getElementById('app') as HTMLElement;

/** How the header names where the window came from. */
const WINDOW_SOURCE = {
  setting: 'from your setting',
  'models-api': 'from the Models API',
  table: 'from the model table',
  assumed: 'assumed: unknown model',
} as const;

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
    r.breakpoint
      ? el(
          'span',
          { class: 'breakpoint', title: breakpointTitle(r.breakpointTtl) },
          r.breakpointTtl ? `◆ ${r.breakpointTtl.value}` : '◆',
        )
      : '',
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
  return section(
    `Last request — ${s.ledger.length} blocks (◆ cache breakpoint, with how long the cache keeps it)`,
    'budget-ledger',
    ...parts,
  );
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

/** 6. Forecast of the turns left before the soft threshold, and the next compaction's plan. */
function forecast(s: BudgetSnapshot): HTMLElement {
  const t = forecastText(s);
  const lines: HTMLElement[] = [el('p', {}, t.forecast)];
  if (t.next)
    lines.push(
      el('p', { 'data-testid': 'next-compaction', 'data-action': t.next.action }, t.next.text),
      el('p', { class: 'muted', 'data-testid': 'next-compaction-detail' }, t.next.detail),
    );
  return section('Forecast', 'budget-forecast', ...lines);
}

/** A warning from the host (e.g. an Unpin that was refused), shown for a while above the cards. */
let notice: { level: 'info' | 'warning'; text: string; until: number } | undefined;
let last: BudgetSnapshot | undefined;
const NOTICE_MS = 10_000;

let lastJson = '';
let lastBanner = false;
/** The Tools card's content, posted apart from the snapshot (servers have states without a session too). */
let tools: BudgetTools | undefined;
/** Why there is no snapshot (no session yet), when there is none. */
let emptyReason: string | undefined;

/**
 * Draws a snapshot. An identical snapshot (the host posts on every event, throttled) changes
 * nothing, so what the user expanded or selected stays; otherwise the cards are rebuilt and
 * the <details> the user had open (by their data-key) are opened again.
 */
function render(s: BudgetSnapshot): void {
  const json = JSON.stringify([s, tools]);
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
      `${s.session} · ${s.model} · window ${formatTokens(s.contextWindow)}${s.windowSource ? ` (${WINDOW_SOURCE[s.windowSource]})` : ''}${s.engine ? ` · engine ${s.engine.name}` : ''}${s.busy ? ' · turn running…' : ''}`,
    ),
    ...(s.engine?.fallback
      ? [
          el(
            'p',
            { class: 'notice warning', 'data-testid': 'budget-engine-fallback' },
            `Last request: the context engine "${s.engine.name}" was not used — ${s.engine.fallback}.`,
          ),
        ]
      : []),
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
    ...(tools ? [toolsSection(tools, post)] : []),
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
  if (m.type === 'snapshot') {
    emptyReason = undefined;
    render(m);
  } else if (m.type === 'empty') {
    emptyReason = m.reason;
    last = undefined;
    renderEmpty();
  } else if (m.type === 'tools') {
    tools = m;
    if (last) render(last);
    else if (emptyReason !== undefined) renderEmpty();
  } else {
    notice = { level: m.level, text: m.text, until: Date.now() + NOTICE_MS };
    if (last) render(last);
  }
});

/** No session yet: the reason, and the Tools card (MCP servers have states before any session). */
function renderEmpty(): void {
  lastJson = '';
  root.replaceChildren(
    el('p', { class: 'muted', 'data-testid': 'budget-empty' }, emptyReason ?? ''),
    ...(tools ? [toolsSection(tools, post)] : []),
  );
}

root.replaceChildren(el('p', { class: 'muted' }, 'Loading…'));
post({ type: 'ready' });

/** A breakpoint's tooltip: why it is here, its lifetime and why that lifetime. */
function breakpointTitle(
  ttl: { readonly value: '5m' | '1h'; readonly reason: string; readonly where?: string | undefined } | undefined,
): string {
  if (!ttl) return 'cache breakpoint after this block';
  const kept = ttl.value === '1h' ? '1 hour' : '5 minutes';
  const where = ttl.where ? ` (${ttl.where})` : '';
  return `Cache breakpoint after this block${where}, kept ${kept}${ttl.reason ? `: ${ttl.reason}` : ''}`;
}
