import uPlot from 'uplot';
// esbuild writes this next to the bundle (dist/webview/budget.css); the panel links it, so the
// strict CSP (styles only from the extension) holds. uPlot itself only sets element.style
// properties from script, which the CSP does not block.
import 'uplot/dist/uPlot.min.css';
import type { BudgetSnapshot } from '../../protocol/budget';
import { el, formatTokens } from '../shared/dom';

type Requests = BudgetSnapshot['requests'];
type SeriesKey = 'promptTokens' | 'cacheRead' | 'cacheWrite';

/** The chart's series, each coloured by a VS Code theme variable (fallback for old themes). */
const SERIES: ReadonlyArray<{
  readonly key: SeriesKey;
  readonly label: string;
  readonly color: string;
  readonly fallback: string;
}> = [
  { key: 'promptTokens', label: 'Prompt tokens', color: '--vscode-charts-blue', fallback: '#3b8eea' },
  { key: 'cacheRead', label: 'Cache reads', color: '--vscode-charts-green', fallback: '#3aa76d' },
  { key: 'cacheWrite', label: 'Cache writes', color: '--vscode-charts-yellow', fallback: '#cca700' },
];

const HEIGHT = 220;

/** Colours and font of the current theme, read from VS Code's CSS variables. */
interface Theme {
  readonly series: readonly string[];
  readonly marker: string;
  readonly axis: string;
  readonly grid: string;
  readonly font: string;
}

function readTheme(): Theme {
  const style = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  const family = v('--vscode-font-family', 'system-ui, sans-serif');
  return {
    series: SERIES.map((s) => v(s.color, s.fallback)),
    marker: v('--vscode-editorWarning-foreground', '#cca700'),
    axis: v('--vscode-descriptionForeground', '#888888'),
    grid: v('--vscode-editorWidget-border', v('--vscode-panel-border', 'rgba(128, 128, 128, 0.35)')),
    font: `11px ${family}`,
  };
}

/** `12k`, `1.2M`: short tick labels. */
function shortTokens(n: number): string {
  if (n >= 1_000_000) return `${+(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1_000) return `${+(n / 1_000).toFixed(1)}k`;
  return String(Math.round(n));
}

function dataOf(requests: Requests): uPlot.AlignedData {
  return [requests.map((r) => r.index), ...SERIES.map((s) => requests.map((r) => r[s.key]))];
}

function xRange(xs: ArrayLike<number>): uPlot.Range.MinMax {
  const first = xs[0];
  const last = xs[xs.length - 1];
  return first === undefined || last === undefined ? [0, 1] : [first - 0.5, last + 0.5];
}

/** The legend's values of the newest request. */
function showLatest(u: uPlot): void {
  const n = u.data[0].length;
  if (n > 0) u.setLegend({ idx: n - 1 }, false);
}

/**
 * A uPlot plugin that draws a dashed vertical line, topped by a small diamond, halfway
 * between a request and the one before when history was compacted between them.
 */
function compactionMarkers(requests: () => Requests, color: string): uPlot.Plugin {
  return {
    hooks: {
      draw: (u: uPlot) => {
        const { ctx } = u;
        const { top, height } = u.bbox;
        const px = uPlot.pxRatio;
        ctx.save();
        ctx.strokeStyle = color;
        ctx.fillStyle = color;
        ctx.lineWidth = 1.5 * px;
        ctx.setLineDash([4 * px, 3 * px]);
        for (const r of requests()) {
          if (!r.compactedBefore) continue;
          const x = Math.round(u.valToPos(r.index - 0.5, 'x', true));
          ctx.beginPath();
          ctx.moveTo(x, top);
          ctx.lineTo(x, top + height);
          ctx.stroke();
          const d = 4 * px;
          ctx.beginPath();
          ctx.moveTo(x, top);
          ctx.lineTo(x + d, top + d);
          ctx.lineTo(x, top + 2 * d);
          ctx.lineTo(x - d, top + d);
          ctx.closePath();
          ctx.fill();
        }
        ctx.restore();
      },
    },
  };
}

/**
 * The per-request chart of the budget panel: prompt tokens, cache reads and cache writes over
 * the request index, drawn by uPlot with a legend (live values under the cursor), dashed
 * markers where history was compacted before a request, theme colours (rebuilt when the
 * theme changes) and the panel's width (a ResizeObserver). One instance lives for the
 * panel's life: re-rendering the panel moves its element and feeds it new data.
 */
export class HistoryChart {
  /** The chart's container (`data-testid="budget-chart"`). */
  readonly element: HTMLElement;
  private plot: uPlot | undefined;
  private requests: Requests = [];
  private width = 0;

  constructor() {
    this.element = el('div', { class: 'chart', 'data-testid': 'budget-chart' });
    new ResizeObserver(() => this.fit()).observe(this.element);
    // VS Code swaps the body's theme class and the CSS variables when the theme changes.
    new MutationObserver(() => this.rebuild()).observe(document.body, {
      attributes: true,
      attributeFilter: ['class', 'data-vscode-theme-id'],
    });
  }

  /** Shows these requests (oldest first). */
  update(requests: Requests): void {
    this.requests = requests;
    const compactions = requests.filter((r) => r.compactedBefore).length;
    this.element.setAttribute('data-points', String(requests.length));
    this.element.setAttribute('data-compactions', String(compactions));
    if (this.plot) {
      this.plot.setData(dataOf(requests));
      this.describe(this.plot);
    } else this.create();
    if (this.plot && (this.plot.cursor.idx === null || this.plot.cursor.idx === undefined)) showLatest(this.plot);
  }

  private rebuild(): void {
    if (!this.plot) return;
    this.plot.destroy();
    this.plot = undefined;
    this.create();
  }

  private create(): void {
    const theme = readTheme();
    this.width = this.element.clientWidth;
    const axis = {
      stroke: theme.axis,
      font: theme.font,
      grid: { stroke: theme.grid, width: 1 },
      ticks: { stroke: theme.grid, width: 1 },
    };
    const opts: uPlot.Options = {
      width: this.width > 0 ? this.width : 600,
      height: HEIGHT,
      scales: {
        // Half a request of room on each side (also for one request, where uPlot would widen the range itself).
        x: { time: false, range: (u) => xRange(u.data[0]) },
        y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.08 : 1] },
      },
      axes: [
        {
          ...axis,
          incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500],
          space: 36,
          values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? `#${v}` : '')),
        },
        { ...axis, size: 52, values: (_u, splits) => splits.map(shortTokens) },
      ],
      series: [
        { label: 'Request', value: (_u, v) => (v === null || v === undefined ? '–' : `#${v}`) },
        ...SERIES.map((s, i) => {
          const color = theme.series[i] ?? s.fallback;
          return {
            label: s.label,
            stroke: color,
            width: 2,
            points: { size: 6, stroke: color, fill: color },
            value: (_u: uPlot, v: number | null) => (v === null || v === undefined ? '–' : formatTokens(v)),
          };
        }),
      ],
      legend: { show: true, live: true, markers: { fill: (_u, i) => theme.series[i - 1] ?? 'transparent' } },
      cursor: { drag: { x: false, y: false, setScale: false } },
      // Away from the cursor the legend shows the newest request, not dashes.
      hooks: { setCursor: [(u) => (u.cursor.idx === null || u.cursor.idx === undefined ? showLatest(u) : undefined)] },
      plugins: [compactionMarkers(() => this.requests, theme.marker)],
    };
    this.plot = new uPlot(opts, dataOf(this.requests), this.element);
    this.describe(this.plot);
  }

  /** A text alternative on the canvas (the table below lists every number). */
  private describe(u: uPlot): void {
    const last = this.requests.at(-1);
    const compactions = this.requests.filter((r) => r.compactedBefore).length;
    const label = last
      ? `Tokens per request: ${this.requests.length} requests; the last one had ${formatTokens(last.promptTokens)} prompt tokens, ${formatTokens(last.cacheRead)} read from the cache and ${formatTokens(last.cacheWrite)} written to it; ${compactions} compaction${compactions === 1 ? '' : 's'} marked.`
      : 'Tokens per request: no request yet.';
    u.ctx.canvas.setAttribute('role', 'img');
    u.ctx.canvas.setAttribute('aria-label', label);
  }

  private fit(): void {
    const width = this.element.clientWidth;
    if (!this.plot || width <= 0 || width === this.width) return;
    this.width = width;
    this.plot.setSize({ width, height: HEIGHT });
  }
}
