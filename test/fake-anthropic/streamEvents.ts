/**
 * The SSE events of a streamed answer, in the API's order: `message_start` (empty content,
 * input usage, output_tokens 1), then per block `content_block_start`, deltas
 * (`thinking_delta` + `signature_delta`, `text_delta`, or `input_json_delta` starting with an
 * empty partial), `content_block_stop`; a `ping` after the first block start; `message_delta`
 * with the stop reason and the cumulative usage; `message_stop`.
 */
import { messageBody, type Answer, type OutBlock, type ServerExtras } from './answer';
import type { FakeUsage } from './types';

/** One server-sent event: its name and its JSON data. */
export interface SseEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** Default characters per delta. */
export const DEFAULT_CHUNK_CHARS = 24;

/** Splits text into pieces of at most `size` code points (never inside a surrogate pair). */
export function chunks(text: string, size: number): string[] {
  const chars = [...text];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

function blockEvents(b: OutBlock, index: number, size: number): SseEvent[] {
  const delta = (d: Record<string, unknown>): SseEvent => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta: d },
  });
  const start = (content_block: Record<string, unknown>): SseEvent => ({
    event: 'content_block_start',
    data: { type: 'content_block_start', index, content_block },
  });
  const out: SseEvent[] = [];
  if (b.type === 'compaction') {
    // SDK BetaMessageStream: the block starts empty and one compaction_delta carries its final value.
    // A signed block (a compaction request's) carries its signature from the start: the summary is whole before it streams.
    out.push(
      start({
        type: 'compaction',
        content: null,
        encrypted_content: null,
        ...(b.signature ? { signature: b.signature } : {}),
      }),
    );
    out.push(delta({ type: 'compaction_delta', content: b.content, encrypted_content: b.encrypted_content }));
  } else if (b.type === 'thinking') {
    out.push(start({ type: 'thinking', thinking: '', signature: '' }));
    for (const c of chunks(b.thinking, size)) out.push(delta({ type: 'thinking_delta', thinking: c }));
    out.push(delta({ type: 'signature_delta', signature: b.signature }));
  } else if (b.type === 'redacted_thinking') {
    // No deltas: the block arrives whole in content_block_start (SDK RawContentBlockStartEvent.content_block).
    out.push(start({ type: 'redacted_thinking', data: b.data }));
  } else if (b.type === 'text') {
    out.push(start({ type: 'text', text: '' }));
    for (const c of chunks(b.text, size)) out.push(delta({ type: 'text_delta', text: c }));
  } else if (b.type === 'tool_search_tool_result') {
    out.push(start({ ...b }));
  } else {
    out.push(
      b.type === 'server_tool_use'
        ? start({ type: 'server_tool_use', id: b.id, name: b.name, input: {}, caller: { type: 'direct' } })
        : start({ type: 'tool_use', id: b.id, name: b.name, input: {} }),
    );
    out.push(delta({ type: 'input_json_delta', partial_json: '' }));
    for (const c of chunks(JSON.stringify(b.input), size))
      out.push(delta({ type: 'input_json_delta', partial_json: c }));
  }
  out.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  return out;
}

/** Every event of the stream of `answer`. */
export function streamEvents(
  id: string,
  model: string,
  answer: Answer,
  usage: FakeUsage,
  chunkChars = DEFAULT_CHUNK_CHARS,
  diagnostics?: unknown,
  server?: ServerExtras,
): SseEvent[] {
  // `diagnostics` travels on message_start's message (the SDK's stream keeps that snapshot).
  const start = messageBody(id, model, { ...answer, content: [] }, { ...usage, output_tokens: 1 }, diagnostics);
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: { type: 'message_start', message: { ...start, stop_reason: null, stop_details: null } },
    },
  ];
  answer.content.forEach((b, i) => {
    const list = blockEvents(b, i, chunkChars);
    events.push(
      ...(i === 0 ? [list[0] as SseEvent, { event: 'ping', data: { type: 'ping' } }, ...list.slice(1)] : list),
    );
  });
  if (answer.content.length === 0) events.push({ event: 'ping', data: { type: 'ping' } });
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: {
        stop_reason: answer.stopReason,
        stop_sequence: null,
        stop_details: answer.stopReason === 'refusal' ? { type: 'refusal', category: null, explanation: null } : null,
      },
      usage: {
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        output_tokens: usage.output_tokens,
        ...(server?.iterations ? { iterations: server.iterations } : {}),
      },
      // SDK BetaRawMessageDeltaEvent: the applied edits come with the final message_delta.
      ...(server ? { context_management: server.contextManagement } : {}),
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}
