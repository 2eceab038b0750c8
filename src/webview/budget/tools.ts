/**
 * The Tools card of the budget panel: what the tool definitions cost in the next request, by
 * server and by tool (deferred ones marked: found by tool search, nothing until then), and each
 * MCP server with its state, its tools' switches and, when it failed, its stderr's last lines.
 */
import type { BudgetToHost, BudgetTools } from '../../protocol/budget';
import { el, formatTokens } from '../shared/dom';
import { section, table } from './ui';

const STATE_LABELS: Readonly<Record<BudgetTools['servers'][number]['state'], string>> = {
  disabled: 'off',
  'awaiting-approval': 'needs your approval',
  starting: 'starting…',
  ready: 'ready',
  failed: 'failed',
  stopped: 'starts with the next message',
};

const SEARCH_WORDS: Readonly<Record<BudgetTools['search'], string>> = {
  server: "deferred tools are found with the API's tool search and cost nothing until Claude finds them",
  client:
    'deferred tools are found with find_tools (this model has no server-side tool search) and join the next request when found',
  none: 'every tool is loaded',
};

/** The card, or a short hint when there is nothing but the built-ins. */
export function toolsSection(t: BudgetTools, post: (m: BudgetToHost) => void): HTMLElement {
  const parts: Node[] = [
    el(
      'p',
      { 'data-testid': 'tools-summary' },
      `Tool definitions: ${formatTokens(t.tokens)} tokens in the next request`,
      t.eagerTokens !== t.tokens ? ` (${formatTokens(t.eagerTokens)} if all were loaded)` : '',
      ` — ${SEARCH_WORDS[t.search]}.`,
    ),
  ];
  if (t.changePending) {
    const r = t.cacheRewrite;
    const cost = r
      ? ` (≈ ${formatTokens(r.tokens)} tokens written to the cache again${r.usd !== null ? `, ≈ $${r.usd.toFixed(4)}` : ''})`
      : '';
    parts.push(
      el(
        'p',
        { class: 'notice warning', 'data-testid': 'tools-pending' },
        `The MCP configuration changed: the tool list changes with the next message, and the prompt after the tools is written to the cache again then${cost}.`,
      ),
    );
  }
  const rows = t.groups.map((g) => [
    g.server === '' ? 'Built-in' : el('code', {}, g.server),
    String(g.tools.length),
    formatTokens(g.tokens),
    g.eagerTokens !== g.tokens ? `${formatTokens(g.eagerTokens - g.tokens)} deferred` : '',
    toolList(g.tools),
  ]);
  parts.push(table(['Source', 'Tools', 'Tokens', 'Deferred', 'Each tool'], rows, { 'data-testid': 'tools-table' }));
  if (t.servers.length > 0) parts.push(el('h3', {}, 'MCP servers'), ...t.servers.map((s) => serverRow(s, post)));
  else
    parts.push(
      el(
        'p',
        { class: 'muted', 'data-testid': 'tools-no-servers' },
        'No MCP server configured: add one in the setting contextPipeline.mcpServers, or in the workspace’s .vscode/mcp.json or .mcp.json.',
      ),
    );
  return section('Tools', 'budget-tools', ...parts);
}

function toolList(tools: BudgetTools['groups'][number]['tools']): HTMLElement {
  return el(
    'details',
    { 'data-key': `tools-${tools[0]?.name ?? ''}` },
    el('summary', {}, 'by tool'),
    el(
      'ul',
      { class: 'tool-list' },
      ...tools.map((x) =>
        el(
          'li',
          {},
          el('code', {}, x.name),
          ` ${formatTokens(x.tokens)}`,
          x.deferred ? el('span', { class: 'muted' }, ' · deferred') : '',
        ),
      ),
    ),
  );
}

function serverRow(s: BudgetTools['servers'][number], post: (m: BudgetToHost) => void): HTMLElement {
  const act = (action: 'enable' | 'disable' | 'retry' | 'approve', label: string) => {
    const b = el('button', { type: 'button', 'data-action': action }, label);
    b.addEventListener('click', () => post({ type: 'mcpServer', action, server: s.name }));
    return b;
  };
  const actions: HTMLElement[] = [];
  if (s.state === 'failed') actions.push(act('retry', 'Retry'));
  if (s.state === 'awaiting-approval') actions.push(act('approve', 'Review and allow…'));
  if (s.state === 'disabled' && s.message === 'Turned off for this session.') actions.push(act('enable', 'Turn on'));
  else if (s.state !== 'disabled') actions.push(act('disable', 'Turn off for this session'));
  const node = el(
    'div',
    { class: `mcp-server ${s.state}`, 'data-testid': 'mcp-server', 'data-server': s.name, 'data-state': s.state },
    el(
      'div',
      { class: 'mcp-head' },
      el('strong', {}, s.name),
      el('span', { class: `state ${s.state}` }, STATE_LABELS[s.state]),
      el(
        'span',
        { class: 'muted' },
        `${s.transport} · ${s.source} · ${s.toolCount} ${s.toolCount === 1 ? 'tool' : 'tools'}`,
      ),
      ...actions,
    ),
  );
  if (s.message) node.append(el('div', { class: 'muted' }, s.message));
  if (s.stale)
    node.append(el('div', { class: 'muted' }, 'Its tool list changed: the new one applies with the next message.'));
  for (const n of s.notices) node.append(el('div', { class: 'notice warning' }, n));
  if (s.stderrTail) node.append(el('pre', { class: 'stderr', 'data-testid': 'mcp-stderr' }, s.stderrTail));
  if (s.tools.length > 0) {
    const off = new Set(s.disabledTools);
    const list = el('div', { class: 'tool-switches' });
    for (const tool of s.tools) {
      const box = el('input', { type: 'checkbox', 'aria-label': `${tool} on for this session` });
      box.checked = !off.has(tool);
      box.addEventListener('change', () => post({ type: 'mcpTool', server: s.name, tool, enabled: box.checked }));
      list.append(el('label', {}, box, ' ', tool));
    }
    node.append(
      el('details', { 'data-key': `switches-${s.name}` }, el('summary', {}, 'Tools on or off for this session'), list),
    );
  }
  return node;
}
