/**
 * The one home of the prompt size of a reported usage. Every place that turns an API usage
 * into "prompt tokens" (the estimator's anchor, the cost's rate card, the request history,
 * the cache health, the last prompt of a resumed session) calls {@link reportedPromptTokens}.
 */

/** The usage figures the Messages API reports (snake_case, as in the SDK); the cache fields may be absent. */
export interface ReportedUsage {
  readonly input_tokens: number;
  readonly cache_read_input_tokens?: number | null;
  readonly cache_creation_input_tokens?: number | null;
}

/** Prompt size of a reported usage: input + cache read + cache creation tokens (absent cache fields count 0). */
export function reportedPromptTokens(usage: ReportedUsage): number {
  return usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
}

/** Everything a usage bills: its prompt (see {@link reportedPromptTokens}) plus its output tokens. */
export function reportedTotalTokens(usage: ReportedUsage & { readonly output_tokens: number }): number {
  return reportedPromptTokens(usage) + usage.output_tokens;
}
