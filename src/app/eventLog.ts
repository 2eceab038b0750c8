/** What the extension's log says about an agent's events (repairs, usage, failures, compactions). */
import { formatUsd } from '../core/llm/cost';
import type { AgentEvent } from '../core/agent/events';
import { describeRepairs } from '../core/normalize/normalize';
import type { LogPort } from './ports';

/** Logs `e` when it is worth a line; other events are ignored. */
export function logEvent(e: AgentEvent, log: LogPort): void {
  switch (e.type) {
    case 'request_started':
      if (!e.repairs || e.repairs.length === 0 || e.attempt > 1) return;
      // Thinking left out after a compaction recurs on every later request by design: one line, not a warning.
      if (e.repairs.every((r) => r.kind === 'thinking_unbound')) log.info(describeRepairs(e.repairs) ?? '');
      else log.warn(`${describeRepairs(e.repairs) ?? ''} ${e.repairs.map((r) => r.detail).join(' ')}`);
      return;
    case 'usage':
      log.info(
        `Request${e.requestId ? ` ${e.requestId}` : ''}${e.cut ? ' cut off mid-answer (its output estimated)' : ''}: ${e.reportedTokens} prompt tokens reported (estimated ${e.estimatedTokens}), ${e.costUsd === undefined ? `price of ${e.model} unknown` : formatUsd(e.costUsd)}.`,
      );
      return;
    case 'error':
      log.error(`Turn failed: ${e.error.kind}: ${e.error.message}`);
      return;
    case 'subagent_finished': {
      const r = e.record;
      log.info(
        `Subagent "${r.description}" (session ${r.sessionId}, ${r.model}) ${r.state}: ${r.rounds} rounds, ${r.toolCalls} tool calls, ${r.requests} requests, ${r.costUsd === undefined ? 'price unknown' : formatUsd(r.costUsd)} billed to this session.`,
      );
      if (e.notSaved) log.warn(e.notSaved);
      return;
    }
    case 'summary_spend':
      log.info(
        `A summary cut short (stopped or timed out) had cost ${e.costUsd === undefined ? `an unknown amount (its price is not known)` : formatUsd(e.costUsd)} on ${e.model}; billed with the summaries.`,
      );
      return;
    case 'compaction_finished':
      for (const r of e.records)
        log.info(
          `Compaction ${r.id} (${r.trigger}, ${r.layer}): ${r.tokensBefore} → ${r.tokensAfter} tokens${r.fallbacks.length ? `; fallbacks: ${r.fallbacks.join('; ')}` : ''}.`,
        );
      return;
    default:
      return;
  }
}
