/**
 * The replay's compaction on demand (the `server` summariser route, src/core/compaction/serverSummary.ts):
 * a compaction request (`server.compaction` set) is validated as the fake server validates it
 * (compactionRequest.ts: the beta, no context_management, the model, the turn it ends on; then
 * the request itself) and goes through the replay's one prompt cache as any side request does —
 * so it reads what earlier main requests cached of its prefix and pays for the rest. Its summary
 * is what the scripted summariser writes of the messages it sends (a compaction block sent
 * first read as its text, as our own rolling summary is), billed as the main model's output, and
 * comes back as the API's signed block, stop reason `compaction`. Every other request goes to
 * the scripted summariser unchanged. Billing lands in the scripted summariser's `requests`, where
 * the replay prices every summariser call.
 */
import type { MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { LlmClient, LlmError, LlmEvent, LlmResult } from '../src/core/llm/llmClient';
import type { ServerRequestParts } from '../src/core/server/serverContext';
import { checkCompaction, compactionSignature } from '../test/fake-anthropic/compactionRequest';
import { rejectionReason, type ReplayApi } from './replayApi';
import { ScriptedSummariser, type ScriptedSummariserOptions } from './scriptedSummariser';

/** The replay's summariser with compaction on demand beside the scripted routes. */
export class ReplayServerSummariser implements LlmClient {
  /** Writes the summary text (no API: its usage is not billed; the request's is). */
  private readonly writer: ScriptedSummariser;

  constructor(
    private readonly scripted: ScriptedSummariser,
    private readonly api: Pick<ReplayApi, 'sendSide' | 'refuse'>,
    opts: Pick<ScriptedSummariserOptions, 'tokens' | 'length'>,
  ) {
    this.writer = new ScriptedSummariser(opts);
    this.tokens = opts.tokens ?? ((t) => Math.ceil(t.length / 3.6));
  }

  private readonly tokens: (text: string) => number;

  async stream(
    params: MessageCreateParamsNonStreaming,
    opts: { signal: AbortSignal; onEvent: (e: LlmEvent) => void; server?: ServerRequestParts },
  ): Promise<{ ok: true; result: LlmResult } | { ok: false; error: LlmError }> {
    const ask = opts.server?.compaction;
    if (!ask) return this.scripted.stream(params, opts);
    this.scripted.calls++;
    const body = { ...params, compaction: ask } as MessageCreateParamsNonStreaming;
    let reason: string | undefined;
    try {
      checkCompaction(body as unknown as Record<string, unknown>, (opts.server?.betas ?? []).join(','));
    } catch (err) {
      reason = rejectionReason(err);
      this.api.refuse(reason);
    }
    const sent = reason === undefined ? this.api.sendSide(body) : undefined;
    if (!sent?.ok) {
      const why = reason ?? (sent && !sent.ok ? sent.reason : 'refused');
      // Priced as a fully uncached request, as the scripted summariser prices a refused one.
      const input = this.tokens(JSON.stringify(params.messages));
      this.scripted.requests.push({
        model: params.model,
        usage: { input_tokens: input, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        invalid: why,
      });
      return {
        ok: false,
        error: { kind: 'invalid_request', message: `The API refused the compaction request: ${why}`, retryable: false },
      };
    }
    const written = await this.writer.stream({ ...params, messages: params.messages.map(asText) }, opts);
    if (!written.ok) return written;
    const summary = written.result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    const usage = { ...sent.split, output_tokens: written.result.usage.output_tokens };
    this.scripted.requests.push({ model: params.model, usage });
    return {
      ok: true,
      result: {
        content: [
          { type: 'compaction', content: summary, encryptedContent: null, signature: compactionSignature(summary) },
        ],
        stopReason: 'compaction',
        model: params.model,
        usage,
      },
    };
  }
}

/** A message with its compaction blocks as text blocks (what the summary draws from). */
function asText(m: MessageParam): MessageParam {
  if (typeof m.content === 'string') return m;
  const content = m.content.map((b) => {
    const c = b as unknown as { type: string; content?: unknown };
    return c.type === 'compaction' && typeof c.content === 'string' ? { type: 'text' as const, text: c.content } : b;
  });
  return { ...m, content } as MessageParam;
}
