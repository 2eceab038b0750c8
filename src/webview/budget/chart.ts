import type { BudgetSnapshot } from '../../protocol/budget';

const NS = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...children: Array<Node | string>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children) node.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return node;
}

export const SERIES = [
  { key: 'promptTokens', label: 'Prompt tokens', cls: 's-prompt' },
  { key: 'cacheRead', label: 'Cache reads', cls: 's-read' },
  { key: 'cacheWrite', label: 'Cache writes', cls: 's-write' },
] as const;

/**
 * A line chart of prompt tokens, cache reads and cache writes per request, with a dashed
 * marker before each request that followed a compaction. Plain SVG built with DOM calls.
 */
export function historyChart(requests: BudgetSnapshot['requests']): SVGSVGElement {
  const W = 640;
  const H = 180;
  const pad = { l: 56, r: 12, t: 10, b: 22 };
  const max = Math.max(1, ...requests.flatMap((r) => [r.promptTokens, r.cacheRead, r.cacheWrite]));
  const n = requests.length;
  const x = (i: number) => pad.l + (n <= 1 ? (W - pad.l - pad.r) / 2 : (i * (W - pad.l - pad.r)) / (n - 1));
  const y = (v: number) => pad.t + (H - pad.t - pad.b) * (1 - v / max);
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': 'Tokens per request', 'data-testid': 'budget-chart' });
  for (const f of [0, 0.5, 1]) {
    root.append(svg('line', { x1: pad.l, x2: W - pad.r, y1: y(max * f), y2: y(max * f), class: 'grid' }));
    root.append(svg('text', { x: pad.l - 6, y: y(max * f) + 4, class: 'axis', 'text-anchor': 'end' }, Math.round(max * f).toLocaleString('en-US')));
  }
  requests.forEach((r, i) => {
    root.append(svg('text', { x: x(i), y: H - 6, class: 'axis', 'text-anchor': 'middle' }, `#${r.index}`));
    if (r.compactedBefore) root.append(svg('line', { x1: x(i) - 4, x2: x(i) - 4, y1: pad.t, y2: H - pad.b, class: 'compaction-marker', 'data-testid': 'compaction-marker' }, svg('title', {}, 'Compaction before this request')));
  });
  for (const s of SERIES) {
    const pts = requests.map((r, i) => `${x(i).toFixed(1)},${y(r[s.key]).toFixed(1)}`).join(' ');
    root.append(svg('polyline', { points: pts, class: `series ${s.cls}` }));
    requests.forEach((r, i) => {
      root.append(svg('circle', { cx: x(i), cy: y(r[s.key]), r: 3, class: `dot ${s.cls}`, 'data-testid': s.key === 'promptTokens' ? 'chart-point' : 'chart-dot' }, svg('title', {}, `Request #${r.index} — ${s.label}: ${r[s.key].toLocaleString('en-US')}`)));
    });
  }
  return root;
}
