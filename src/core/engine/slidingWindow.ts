/**
 * The `sliding-window` built-in engine: each request sends the newest messages that fit the
 * token budget, starting at one of the user's own messages (never at a tool result, whose call
 * would be missing), and always at least the newest turn; the session keeps the whole history
 * (nothing is summarised, so nothing needs restoring). It owns compaction: the pipeline's
 * layers stay off. Simple, predictable, and forgetful by design — an example of the slot as
 * much as an option. Pure; written against the public API only, as a third party's would be.
 */
import type { ContextEngine, EngineContext, EngineMessage } from '../../../api/context-pipeline';

/** The built-in sliding-window engine (see the module comment). */
export function slidingWindowEngine(): ContextEngine {
  return {
    info: { name: 'Sliding window', ownsCompaction: true },
    assemble: (ctx) => ({ messages: newestThatFit(ctx) }),
  };
}

/** The newest messages within `ctx.tokenBudget`, from a user message that is not only tool results. */
export function newestThatFit(ctx: Pick<EngineContext, 'messages' | 'messageTokens' | 'tokenBudget'>): EngineMessage[] {
  const { messages, messageTokens } = ctx;
  let tokens = 0;
  // The oldest turn start whose messages up to the newest fit; the newest turn start when none does.
  let from = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    tokens += messageTokens[i] ?? 0;
    if (tokens > ctx.tokenBudget && from >= 0) break;
    if (startsTurn(messages[i])) from = i;
  }
  return messages.slice(Math.max(0, from));
}

function startsTurn(m: EngineMessage | undefined): boolean {
  if (!m || m.role !== 'user') return false;
  return typeof m.content === 'string' || !m.content.some((b) => b.type === 'tool_result');
}
