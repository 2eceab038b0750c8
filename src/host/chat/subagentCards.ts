/** A subagent's figures as its task call's card shows them (protocol/chatItems.ts). */
import type { ChatItem, SubagentCard } from '../../protocol/chatItems';
import { subagentTokens, type SubagentFigures } from '../../core/subagents/subagentRecord';

/** The card figures of `f`. */
export function subagentCard(f: SubagentFigures): SubagentCard {
  return {
    sessionId: f.sessionId,
    model: f.model,
    state: f.state,
    requests: f.requests,
    rounds: f.rounds,
    toolCalls: f.toolCalls,
    ...(f.lastTool !== undefined ? { lastTool: f.lastTool } : {}),
    compactions: f.compactions,
    tokens: subagentTokens(f),
    costUsd: f.costUsd ?? null,
  };
}

/**
 * `items` with each task call's card given its subagent's figures (`figures` by call id);
 * other items as they are.
 */
export function withSubagents(
  items: readonly ChatItem[],
  figures: (toolUseId: string) => SubagentFigures | undefined,
): ChatItem[] {
  return items.map((item) => {
    if (item.kind !== 'tool') return item;
    const f = figures(item.id);
    return f ? { ...item, subagent: subagentCard(f) } : item;
  });
}
