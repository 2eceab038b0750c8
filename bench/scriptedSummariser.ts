/**
 * A deterministic stand-in for the summariser model in benches: it "summarises" by keeping
 * the lines of the request that carry identifiers (paths, symbols, errors) — then other lines —
 * until the summary is as long as a real one would be (summaryLength.ts: about
 * max(floor, ratio × the region's tokens), never over max_tokens), and reports usage the way
 * the API would. With an `api` (the replay's ReplayApi), each request is validated and goes
 * through the replay's one prompt cache, so a request of the main model that repeats the
 * main prompt's prefix reads it from cache; a refused request fails as the API would fail it.
 * A main-model summary request (mainSummary.ts) is summarised from the stretch it names only,
 * and priced on the whole prompt it sends, plus the thinking the main model spends per answer.
 */
import type { ContentBlockParam, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { LlmClient, LlmError, LlmEvent, LlmResult, Usage } from '../src/core/agent/agentPorts';
import { stretchOfRequest } from '../src/core/compaction/mainSummary';
import { safeCutIndex } from '../src/core/platform/text';
import type { ApiOutcome } from './replayApi';
import { SUMMARY_LENGTH, summaryLengthTokens, type SummaryLengthModel } from './summaryLength';

const SIGNAL = /[\w./-]+\.[a-z]{1,5}\b|[A-Za-z_]+[A-Z][A-Za-z0-9_]*|Error|error|failed|TODO|decid/;
/** Longest line a summary keeps. */
const LINE_CHARS = 200;
/** Whole lines are taken up to this multiple of the target before the summary is cut to it. */
const OVERSHOOT = 1.2;

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
    // A main-model request carries the whole conversation and names the stretch to summarise: only that is the region.
    const stretch = stretchOfRequest(params);
    const source = stretch ? params.messages.slice(stretch.from - 1, stretch.to) : params.messages;
    const text = source
      .map((m) => (typeof m.content === 'string' ? m.content : m.content.map(blockText).join('\n')))
      .join('\n');
    const system =
      typeof params.system === 'string' ? params.system : (params.system ?? []).map((b) => b.text).join('\n');
    const regionTokens = this.tokens(text);
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
    const target = summaryLengthTokens(regionTokens, params.max_tokens, this.opts.length ?? SUMMARY_LENGTH);
    const { summary, tokens: summaryTokens } = this.extract(text, target);
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
   * Lines with identifiers first, then the others (in order within each), as `- line` items,
   * until `target` tokens: whole lines while the per-line counts allow with a margin, then the
   * text is cut to the target (a model stopping at its length), counted on the whole summary.
   */
  private extract(text: string, target: number): { summary: string; tokens: number } {
    const lines = text
      .split('\n')
      .map((l) => l.trim().slice(0, LINE_CHARS))
      .filter((l) => l !== '');
    const ordered = [...lines.filter((l) => SIGNAL.test(l)), ...lines.filter((l) => !SIGNAL.test(l))];
    const picked: string[] = [];
    let estimate = 0;
    for (const line of ordered) {
      if (estimate >= target * OVERSHOOT) break;
      picked.push(`- ${line}`);
      estimate += this.tokens(line);
    }
    if (picked.length === 0) return { summary: 'The earlier turns held nothing worth keeping.', tokens: 10 };
    let summary = picked.join('\n');
    let tokens = this.tokens(summary);
    for (let i = 0; i < 4 && tokens > target; i++) {
      summary = summary.slice(0, safeCutIndex(summary, Math.floor((summary.length * target) / tokens))).trimEnd();
      tokens = this.tokens(summary);
    }
    return { summary, tokens };
  }
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
