/**
 * A deterministic stand-in for the summariser model in benches: it "summarises" by keeping
 * the lines of the request that carry identifiers (paths, symbols, errors), up to the
 * requested length, and reports usage the way the API would.
 */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { LlmClient, LlmError, LlmEvent, LlmResult } from '../src/core/agentPorts';

const SIGNAL = /[\w./-]+\.[a-z]{1,5}\b|[A-Za-z_]+[A-Z][A-Za-z0-9_]*|Error|error|failed|TODO|decid/;

/** A summariser that never calls a network; `fail` makes it fail the next n calls. */
export class ScriptedSummariser implements LlmClient {
  calls = 0;
  fail = 0;

  async stream(params: MessageCreateParamsNonStreaming, _opts: { signal: AbortSignal; onEvent: (e: LlmEvent) => void }): Promise<{ ok: true; result: LlmResult } | { ok: false; error: LlmError }> {
    this.calls++;
    if (this.fail > 0) {
      this.fail--;
      return { ok: false, error: { kind: 'overloaded', message: 'scripted summariser failure', retryable: false } };
    }
    const text = params.messages.map((m) => (typeof m.content === 'string' ? m.content : m.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n'))).join('\n');
    // The prompt asks for a target length; max_tokens leaves 1.5× room, so aim at max_tokens / 1.5 (≈ 3.5 characters a token).
    const budgetChars = Math.max(400, Math.floor((params.max_tokens / 1.5) * 3.5));
    const picked: string[] = [];
    let used = 0;
    for (const line of text.split('\n')) {
      const l = line.trim();
      if (!l || !SIGNAL.test(l)) continue;
      const cut = l.slice(0, 200);
      if (used + cut.length > budgetChars) break;
      picked.push(`- ${cut}`);
      used += cut.length + 3;
    }
    const summary = picked.length ? picked.join('\n') : 'The earlier turns held no identifiers worth keeping.';
    return {
      ok: true,
      result: {
        content: [{ type: 'text', text: summary }],
        stopReason: 'end_turn',
        model: params.model,
        usage: { input_tokens: Math.ceil(text.length / 3.6), output_tokens: Math.ceil(summary.length / 3.6), cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      },
    };
  }
}
