/**
 * A deterministic stand-in for the summariser model in benches. It "summarises" by keeping the
 * identifiers a real summary keeps, by one rule calibrated on the fixtures' real compactions
 * (summaryKeep.ts: the conversation's own identifiers before tool output's, newest first,
 * `SUMMARY_KEEP` of them), filling the rest with the stretch's identifier-free lines until the
 * summary is as long as a real one would be (summaryLength.ts: about max(floor, ratio × the
 * region's tokens), never over max_tokens), and reports usage the way the API would. With an
 * `api` (the replay's ReplayApi), each request is validated and goes through the replay's one
 * prompt cache, so a request of the main model that repeats the main prompt's prefix reads it
 * from cache; a refused request fails as the API would fail it. A main-model summary request
 * (mainSummary.ts) is summarised from the stretch it names only, and priced on the whole prompt
 * it sends, plus the thinking the main model spends per answer.
 */
import type { ContentBlockParam, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { LlmClient, LlmError, LlmEvent, LlmResult, Usage } from '../src/core/llm/llmClient';
import { stretchOfRequest } from '../src/core/compaction/mainSummary';
import type { ApiOutcome } from './replayApi';
import { summarySource, writeSummary, type ScriptedSummaryText, type SummarySource } from './scriptedSummary';
import { SUMMARY_KEEP } from './summaryKeep';
import { SUMMARY_LENGTH, summaryLengthTokens, type SummaryLengthModel } from './summaryLength';
import { requestPassages } from './summaryPassages';

/** One summariser request as the API saw it. */
export interface SummariserCall {
  readonly model: string;
  readonly usage: Usage;
  /** The refusal reason, when the API refused it (priced as a fully uncached request). */
  readonly invalid?: string;
}

/** What the scripted summariser is built with; every field is optional. */
export interface ScriptedSummariserOptions {
  /** Tokens of a text as the replay counts them; default ~3.6 characters a token. */
  readonly tokens?: (text: string) => number;
  /** How long summaries come out; default SUMMARY_LENGTH (measured on the fixtures). */
  readonly length?: SummaryLengthModel;
  /** Share of the stretch's identifiers a summary keeps; default SUMMARY_KEEP (calibrated on the fixtures). */
  readonly keep?: number;
  /** The replay's API: validation and the shared prompt cache. Without it, every input token is uncached. */
  readonly api?: { sendSide(params: MessageCreateParamsNonStreaming): ApiOutcome };
  /**
   * Output tokens the main model spends thinking per answer, as measured on the transcript (the
   * replay sends its requests with thinking off, but the sessions it replays had it on). A
   * main-model summary request keeps the conversation's thinking setting, so it is billed that
   * much output beyond the summary. Default: none.
   */
  readonly mainThinking?: () => number;
}

/** A summariser that never calls a network; `fail` makes it fail the next n calls. */
export class ScriptedSummariser implements LlmClient {
  /** Requests made, failed ones included. */
  calls = 0;
  /** How many of the next calls fail (as an overloaded API would). */
  fail = 0;
  /** Every request that reached the (simulated) API, in order. */
  readonly requests: SummariserCall[] = [];
  private readonly tokens: (text: string) => number;
  private readonly readings = new WeakMap<MessageCreateParamsNonStreaming, Reading>();

  constructor(private readonly opts: ScriptedSummariserOptions = {}) {
    this.tokens = opts.tokens ?? ((t) => Math.ceil(t.length / 3.6));
  }

  async stream(
    params: MessageCreateParamsNonStreaming,
    _opts: { signal: AbortSignal; onEvent: (e: LlmEvent) => void },
  ): Promise<{ ok: true; result: LlmResult } | { ok: false; error: LlmError }> {
    this.calls++;
    if (this.fail > 0) {
      this.fail--;
      return { ok: false, error: { kind: 'overloaded', message: 'scripted summariser failure', retryable: false } };
    }
    const stretch = stretchOfRequest(params);
    const system =
      typeof params.system === 'string' ? params.system : (params.system ?? []).map((b) => b.text).join('\n');
    const { regionTokens } = this.read(params);
    const sent = this.opts.api?.sendSide(params);
    if (sent && !sent.ok) {
      const input = regionTokens + this.tokens(system);
      this.requests.push({
        model: params.model,
        usage: { input_tokens: input, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        invalid: sent.reason,
      });
      return {
        ok: false,
        error: {
          kind: 'invalid_request',
          message: `The API refused the summary request: ${sent.reason}`,
          retryable: false,
        },
      };
    }
    const { text: summary, tokens: summaryTokens } = this.draft(params);
    const thinking = stretch ? Math.max(0, Math.round(this.opts.mainThinking?.() ?? 0)) : 0;
    const output = summaryTokens + thinking;
    const split = sent?.ok
      ? sent.split
      : {
          input_tokens: regionTokens + this.tokens(system),
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        };
    const usage: Usage = { ...split, output_tokens: output };
    this.requests.push({ model: params.model, usage });
    return {
      ok: true,
      result: {
        content: [{ type: 'text', text: summary }],
        stopReason: summaryTokens >= params.max_tokens ? 'max_tokens' : 'end_turn',
        model: params.model,
        usage,
      },
    };
  }

  /**
   * The summary this summariser writes for `params` keeping `share` of the stretch's identifiers
   * (default: its `keep`), at the length `SUMMARY_LENGTH` gives the region — what `stream`
   * answers, without the API. The stretch is read once per request object, for any share.
   */
  draft(params: MessageCreateParamsNonStreaming, share = this.opts.keep ?? SUMMARY_KEEP): ScriptedSummaryText {
    const { source, regionTokens } = this.read(params);
    const target = summaryLengthTokens(regionTokens, params.max_tokens, this.opts.length ?? SUMMARY_LENGTH);
    return writeSummary(source, target, this.tokens, share);
  }

  /** The region of a request (a main-model request's named stretch only) and its tokens, read once. */
  private read(params: MessageCreateParamsNonStreaming): Reading {
    let r = this.readings.get(params);
    if (!r) {
      const stretch = stretchOfRequest(params);
      const region = stretch ? params.messages.slice(stretch.from - 1, stretch.to) : params.messages;
      const text = region
        .map((m) => (typeof m.content === 'string' ? m.content : m.content.map(blockText).join('\n')))
        .join('\n');
      r = { source: summarySource(requestPassages(params)), regionTokens: this.tokens(text) };
      this.readings.set(params, r);
    }
    return r;
  }
}

/** A request's region as the summariser reads it. */
interface Reading {
  readonly source: SummarySource;
  readonly regionTokens: number;
}

/** What a block says, as the summary draws from it: text, a tool call, a tool result's text. */
function blockText(b: ContentBlockParam): string {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'tool_use':
      return `${b.name} ${JSON.stringify(b.input)}`;
    case 'tool_result':
      return typeof b.content === 'string'
        ? b.content
        : (b.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('\n');
    default:
      return '';
  }
}
