/**
 * The request history card's last line in words: how many requests (and subagents), what the
 * session cost in all, and who spent which part of it besides the requests listed — the
 * compaction summariser, the subagents, the handoff note that started the session. Pure: the
 * card (requests.ts) puts the string into the DOM.
 */
import type { BudgetSnapshot } from '../../protocol/budget';
import { formatUsd } from '../shared/dom';

/** The subagents' share of the bill (requests.ts sums their rows): how many ran and what they cost (null: a price unknown). */
export interface SubagentsSpend {
  readonly count: number;
  readonly costUsd: number | null;
}

/**
 * "12 requests and 1 subagent, $0.1234 in this session ($0.0040 of it by compaction summaries,
 * $0.0030 by subagents, $0.0051 by the handoff note that started this session) (newest first,
 * at most 20 listed)." The total is the requests', the summaries', the subagents' and the
 * note's; a request, summary, subagent or note of unknown price makes it `—`, never a guess
 * (and its own part reads `—`).
 */
export function requestsTotalText(
  s: Pick<BudgetSnapshot, 'requests' | 'summariesCostUsd' | 'handoffCostUsd'>,
  agents: SubagentsSpend | undefined,
): string {
  const sum = (a: number | null, c: number | null) => (a === null || c === null ? null : a + c);
  const own = s.requests.reduce<number | null>((a, r) => sum(a, r.costUsd), 0);
  const handoff = s.handoffCostUsd === undefined ? 0 : s.handoffCostUsd;
  const total = sum(sum(sum(own, s.summariesCostUsd), handoff), agents ? agents.costUsd : 0);
  const spent: Array<readonly [number | null, string]> = [
    ...(s.summariesCostUsd !== 0 ? [[s.summariesCostUsd, 'compaction summaries'] as const] : []),
    ...(agents ? [[agents.costUsd, 'subagents'] as const] : []),
    ...(handoff !== 0 ? [[handoff, 'the handoff note that started this session'] as const] : []),
  ];
  const parts = spent.map(([cost, who], i) => `${formatUsd(cost)}${i === 0 ? ' of it' : ''} by ${who}`);
  const n = s.requests.length;
  const subagents = agents ? ` and ${agents.count} ${agents.count === 1 ? 'subagent' : 'subagents'}` : '';
  return `${n} ${n === 1 ? 'request' : 'requests'}${subagents}, ${formatUsd(total)} in this session${parts.length > 0 ? ` (${parts.join(', ')})` : ''} (newest first, at most 20 listed).`;
}
