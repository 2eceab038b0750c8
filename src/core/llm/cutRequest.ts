/**
 * Billing a request cut off before its answer ended (Stop, a dropped connection, a timeout after
 * the answer began). The stream's `message_start` carries the request's usage with its input and
 * cache figures (SDK `RawMessageStartEvent.message.usage`) and a placeholder output count; the
 * real output count only comes in `message_delta` (SDK `MessageDeltaUsage`: cumulative), at the
 * answer's end. Anthropic's docs do not say what a cancelled stream is charged; API gateways that
 * meter Anthropic's streams charge the input as `message_start` reported it and the output that
 * had streamed, estimated (e.g. LiteLLM PR #30420, Bifrost PR #4842, TrueFoundry's "stream
 * disconnect cost accounting"), and so does this: a cut request counts in the session's cost
 * rather than vanishing from it, its output marked as an estimate wherever it is shown. Pure.
 */
import type { CacheTtl } from '../conversation/conversationModel';
import { requestCostUsd } from './cost';
import type { CutUsage, LlmError, LlmEvent, Usage } from './llmClient';

/**
 * Characters of streamed answer counted as one output token: between English prose (near 4)
 * and code (near 3). An estimate, and shown as one (`~` in the budget panel and the export).
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

/**
 * What a cut attempt costs, at its answering model's price (else `model`'s, when the stream
 * named none): its billed usage (cutBilledUsage) priced as any request; undefined when the
 * model has no known price.
 */
export function cutCostUsd(cut: CutUsage, model: string, ttl: CacheTtl = '5m'): number | undefined {
  return requestCostUsd(cut.model || model, cutBilledUsage(cut), ttl);
}

/**
 * The attempts of one request stream that were cut after their answers began: those its
 * retries reported (`onEvent`) and its own failure's (`failed`). For the requests whose cost
 * goes into a record rather than a usage line (a summary, a handoff note): their record then
 * counts what the cut attempts used too.
 */
export class CutAttempts {
  private readonly cuts: CutUsage[] = [];

  /** The stream's `onEvent` (or called from it): a retry of a cut attempt is counted. */
  readonly onEvent = (e: LlmEvent): void => {
    if (e.type === 'retrying' && e.error.cut) this.cuts.push(e.error.cut);
  };

  /** The stream failed with `error`: its attempt is counted when it was cut. */
  failed(error: LlmError): void {
    if (error.cut) this.cuts.push(error.cut);
  }

  /**
   * What the cut attempts so far cost (each at its answering model's price, else `model`'s);
   * `unknown` when a price is not known (its cost is then left out of `usd`).
   */
  cost(model: string, ttl: CacheTtl = '5m'): { readonly usd: number; readonly unknown: boolean } {
    let usd = 0;
    let unknown = false;
    for (const cut of this.cuts) {
      const c = cutCostUsd(cut, model, ttl);
      if (c === undefined) unknown = true;
      else usd += c;
    }
    return { usd, unknown };
  }
}
