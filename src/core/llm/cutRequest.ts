/**
 * Billing a request cut off before its answer ended (Stop, a dropped connection, a timeout after
 * the answer began). The API bills such a request for its prompt and the output generated up to
 * the cut, but never reports the final usage: the stream's `message_start` carries the input and
 * cache figures (final) and a placeholder output count, and the real output count only comes in
 * the answer's last events. So the input side is taken as reported and the output is estimated
 * from the characters that arrived — the same accounting API gateways use for cancelled Anthropic
 * streams (e.g. LiteLLM PR #30420, Bifrost PR #4842, TrueFoundry's "stream disconnect cost
 * accounting"). Pure.
 */
import type { CutUsage, Usage } from './llmClient';

/**
 * Characters of streamed answer counted as one output token (English prose runs near 4, code
 * nearer 3): the estimate errs toward more tokens, so a cut request is not shown cheaper than it was.
 */
export const CUT_OUTPUT_CHARS_PER_TOKEN = 3.5;

/**
 * The usage a cut request is billed for: what the API reported as the answer began, with the
 * output the larger of the count it reported and the estimate from `streamedChars`.
 */
export function cutBilledUsage(cut: CutUsage): Usage {
  const estimated = Math.ceil(Math.max(0, cut.streamedChars) / CUT_OUTPUT_CHARS_PER_TOKEN);
  return { ...cut.usage, output_tokens: Math.max(cut.usage.output_tokens, estimated) };
}
