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

  /** Takes one stream event. */
  see(event: RawMessageStreamEvent | BetaRawMessageStreamEvent): void {
    if (event.type === 'message_start') {
      this.started = { usage: usageOf(event.message.usage as Message['usage']), model: event.message.model };
    } else if (event.type === 'message_delta') {
      const out = event.usage?.output_tokens;
      if (typeof out === 'number' && out > this.deltaOutput) this.deltaOutput = out;
    } else if (event.type === 'content_block_delta') {
      const d = event.delta;
      if (d.type === 'text_delta') this.chars += d.text.length;
      else if (d.type === 'thinking_delta') this.chars += d.thinking.length;
      else if (d.type === 'input_json_delta') this.chars += d.partial_json.length;
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
