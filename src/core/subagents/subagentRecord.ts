/**
 * What a subagent did and cost: its figures while it runs (shown live on its card) and the
 * record saved to the parent's session when it ends (the bill: every request of the child is
 * in it, so the parent's cost is never missing a subagent's). Pure.
 */
import type { Usage } from '../llm/llmClient';
import { addCosts } from '../llm/cost';

/** How a subagent ended (`running` while it runs). */
export type SubagentState = 'running' | 'done' | 'failed' | 'stopped';

/** A subagent's figures so far. */
export interface SubagentFigures {
  /** The child session's id (its transcript). */
  readonly sessionId: string;
  readonly description: string;
  /** The model the subagent runs on. */
  readonly model: string;
  readonly state: SubagentState;
  /** Requests to Claude that got an answer. */
  readonly requests: number;
  /** Tool rounds started (a request per round). */
  readonly rounds: number;
  readonly toolCalls: number;
  /** The last tool call, on one line (`Read src/a.ts`); absent before the first. */
  readonly lastTool?: string;
  /** Compactions of the subagent's own context. */
  readonly compactions: number;
  /** Every request's usage, summed. */
  readonly usage: Usage;
  /** Summed; undefined as soon as one request's price is unknown. */
  readonly costUsd: number | undefined;
}

/** A subagent's record in its parent's session: its figures when it ended, and the call that started it. */
export interface SubagentRecord extends SubagentFigures {
  readonly state: Exclude<SubagentState, 'running'>;
  /** The parent's task call. */
  readonly toolUseId: string;
  /** When it ended (ms since the epoch). */
  readonly at: number;
}

/** No usage yet. */
export const ZERO_USAGE: Usage = Object.freeze({
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
});

/** The figures of a subagent that has just started. */
export function startedFigures(sessionId: string, description: string, model: string): SubagentFigures {
  return {
    sessionId,
    description,
    model,
    state: 'running',
    requests: 0,
    rounds: 0,
    toolCalls: 0,
    compactions: 0,
    usage: ZERO_USAGE,
    costUsd: 0,
  };
}

/** Two usages summed field by field. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
  };
}

/** `f` with one more answered request. */
export function withRequest(f: SubagentFigures, usage: Usage, costUsd: number | undefined): SubagentFigures {
  return { ...f, requests: f.requests + 1, usage: addUsage(f.usage, usage), costUsd: addCosts(f.costUsd, costUsd) };
}

/** Tokens a subagent's requests read and wrote: every prompt (input + cache reads + cache writes) and every answer. */
export function subagentTokens(f: Pick<SubagentFigures, 'usage'>): number {
  const u = f.usage;
  return u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens + u.output_tokens;
}

/** The subagents' costs summed (undefined as soon as one is unknown); 0 for none. */
export function subagentsCost(records: readonly Pick<SubagentRecord, 'costUsd'>[]): number | undefined {
  return records.reduce<number | undefined>((n, r) => addCosts(n, r.costUsd), 0);
}
