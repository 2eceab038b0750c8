/**
 * What a streamed answer has used so far, so that a request cut off before its end (Stop, a
 * dropped connection, a timeout) is billed rather than lost (core/llm/llmClient.ts CutUsage):
 * the usage its `message_start` reported (input and cache figures final; the output count
 * there is a placeholder), the highest cumulative output count a `message_delta` reported, and
 * the characters of answer that arrived (text, thinking and tool-input deltas). One per attempt.
 */
import type { Message, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { BetaRawMessageStreamEvent } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { CutUsage, Usage } from '../../core/llm/llmClient';
import { usageOf } from './sdkMessages';

/** Meters one streamed attempt (see the module comment). */
export class StreamMeter {
  private started: { readonly usage: Usage; readonly model: string } | undefined;
  private deltaOutput = 0;
  private chars = 0;

  /**
   * Takes one stream event. Never throws: the events are the server's (untrusted), and a meter
   * must not break an answer — a figure that is not a whole count reads as 0 (the answer's own
   * shape is checked at its end, answerShape.ts).
   */
  see(event: RawMessageStreamEvent | BetaRawMessageStreamEvent): void {
    try {
      this.take(event);
    } catch {
      // An event of an unexpected shape is left out of the meter.
    }
  }

  private take(event: RawMessageStreamEvent | BetaRawMessageStreamEvent): void {
    if (event.type === 'message_start') {
      const u = event.message.usage as Partial<Message['usage']> | undefined;
      if (!u || typeof u !== 'object') return;
      const usage = usageOf({
        ...u,
        input_tokens: count(u.input_tokens),
        output_tokens: count(u.output_tokens),
        cache_read_input_tokens: count(u.cache_read_input_tokens),
        cache_creation_input_tokens: count(u.cache_creation_input_tokens),
        cache_creation:
          u.cache_creation && typeof u.cache_creation === 'object'
            ? {
                ephemeral_5m_input_tokens: count(u.cache_creation.ephemeral_5m_input_tokens),
                ephemeral_1h_input_tokens: count(u.cache_creation.ephemeral_1h_input_tokens),
              }
            : null,
      } as Message['usage']);
      this.started = { usage, model: typeof event.message.model === 'string' ? event.message.model : '' };
    } else if (event.type === 'message_delta') {
      this.deltaOutput = Math.max(this.deltaOutput, count(event.usage?.output_tokens));
    } else if (event.type === 'content_block_delta') {
      const d = event.delta;
      if (d.type === 'text_delta') this.chars += textLength(d.text);
      else if (d.type === 'thinking_delta') this.chars += textLength(d.thinking);
      else if (d.type === 'input_json_delta') this.chars += textLength(d.partial_json);
    }
  }

  /**
   * What the attempt had used when it was cut; undefined when its answer never began (no
   * `message_start`: the API refused or never reached the model, and bills nothing).
   */
  cut(): CutUsage | undefined {
    if (!this.started) return undefined;
    const { usage, model } = this.started;
    const output = Math.max(usage.output_tokens, this.deltaOutput);
    return { usage: { ...usage, output_tokens: output }, model, streamedChars: this.chars };
  }
}

/** A whole, non-negative token count, or 0 for anything else. */
function count(n: unknown): number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

/** The length of a delta's text, or 0 when it is not text. */
function textLength(t: unknown): number {
  return typeof t === 'string' ? t.length : 0;
}
