/**
 * What the status-bar meter says (text, tone, tooltip) for a set of figures; pure, so the
 * figures it shows can be compared with the budget panel's and the policy's in a unit test.
 * The level and the effective window come in `pressure` (core's `contextPressure`), never
 * recomputed here.
 */

import type { ContextFigures } from '../app/statusReport';
import { formatUsd } from '../core/llm/cost';
import { shortTokens } from '../core/platform/text';

export type { ContextFigures };

/** The meter's text, its background tone (error past the hard threshold, warning past the soft one) and its Markdown tooltip. */
export interface StatusBarText {
  readonly text: string;
  readonly tone: 'error' | 'warning' | undefined;
  readonly tooltip: string;
}

/**
 * Renders the figures: `$(pulse) 62 % of 168k`, toned by the pressure level. The percentage is
 * the one "% full" (`pressure.percentFull`, of the usable window), as the chat header and the
 * budget panel show it; the tooltip's first line says it in full (`pressure.fullness`).
 */
export function statusBarText(f: ContextFigures): StatusBarText {
  const level = f.pressure.level;
  const effective = f.pressure.effectiveWindow;
  const lines = [
    `**Context Pipeline**\n\n`,
    `**${f.estimated ? '≈ ' : ''}${f.pressure.fullness}**\n\n`,
    `${f.estimated ? 'Estimated prompt (nothing reported yet)' : 'Last prompt'}: ${f.promptTokens.toLocaleString('en-US')} tokens. The usable window is the ${f.window.toLocaleString('en-US')}-token window less ${f.outputReserve.toLocaleString('en-US')} reserved for the answer.\n\n`,
  ];
  const parts = (f.breakdown ?? []).filter((b) => b.tokens > 0);
  if (parts.length > 0) {
    lines.push(`| Next request | Tokens |\n|---|---:|\n`);
    for (const b of parts) lines.push(`| ${b.label} | ${Math.round(b.tokens).toLocaleString('en-US')} |\n`);
    lines.push('\n');
  }
  const tools = f.tools ?? [];
  if (tools.length > 1 || tools.some((g) => g.server !== '')) {
    const each = tools.map(
      (g) =>
        `${g.server === '' ? 'built-in' : g.server} ${Math.round(g.tokens).toLocaleString('en-US')}${g.deferred > 0 ? ` (${g.deferred} deferred)` : ''}`,
    );
    lines.push(`Tool definitions: ${each.join(' · ')}.\n\n`);
  }
  if (f.engine) lines.push(`Context engine: ${f.engine}.\n\n`);
  lines.push(
    `Compaction: soft at ${Math.round(f.softThreshold * 100)}%, hard at ${Math.round(f.hardThreshold * 100)}% of ${effective.toLocaleString('en-US')} tokens · ${f.compactions} so far.\n\n`,
    `Cost this session: ${f.costUsd === undefined ? "— (a model's price is unknown)" : `$${f.costUsd.toFixed(4)}`}${costParts(f)}${f.cacheHitRate !== undefined ? ` · cache hit rate ${Math.round(f.cacheHitRate * 100)}%` : ''}.`,
  );
  return {
    text: `$(pulse) ${f.estimated ? '≈' : ''}${f.pressure.percentFull} % of ${shortTokens(effective)}`,
    tone: level === 'hard' || level === 'over' ? 'error' : level === 'soft' ? 'warning' : undefined,
    tooltip: lines.join(''),
  };
}

/**
 * " (summaries $0.0040, subagents $0.0123, handoff note $0.0051)": what the summariser, the
 * subagents and the handoff note that started the session spent of its cost.
 */
function costParts(f: Pick<ContextFigures, 'summaries' | 'subagents' | 'handoff'>): string {
  const parts = [
    ...(f.summaries ? [`summaries ${formatUsd(f.summaries.costUsd)}`] : []),
    ...(f.subagents ? [`subagents ${formatUsd(f.subagents.costUsd)}`] : []),
    ...(f.handoff ? [`handoff note ${formatUsd(f.handoff.costUsd)}`] : []),
  ];
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}
