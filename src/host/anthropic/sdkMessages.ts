// Translation of the SDK's answers into the core's terms: the final message of either path
// (plain or beta) as an LlmResult, stream events as LlmEvents, cache-miss diagnostics.
import type { CacheMissReason, Message, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { BetaMessage, BetaRawMessageStreamEvent } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { LlmEvent, LlmResult, ApiCacheMissReason, Usage } from '../../core/llm/llmClient';
import { parseServerReport } from '../../core/llm/serverReport';
import type { AssistantContent } from '../../core/conversation/assistant';
import type { ServerToolRaw } from '../../core/conversation/conversationModel';

/**
 * The answer as the core sees it, from the SDK's final message of either path: its content
 * (a compaction block — beta only, SDK `BetaCompactionBlock`; null content means a failed
 * compaction the server treats as a no-op, so it is left out — text, tool calls, signed and
 * redacted thinking kept unchanged per
 * https://platform.claude.com/docs/en/build-with-claude/extended-thinking#redacted-thinking-blocks),
 * its usage, its id and `diagnostics` (on message_start's message, which the SDK keeps; older
 * servers omit it), and the `context_management` / `usage.iterations` report (beta only).
 */
export function resultOf(final: Message | BetaMessage, requestId: string | null | undefined): LlmResult {
  const content: AssistantContent[] = [];
  for (const b of final.content) {
    if (b.type === 'compaction' && b.content)
      content.push({
        type: 'compaction',
        content: b.content,
        ...(b.encrypted_content !== undefined ? { encryptedContent: b.encrypted_content } : {}),
        // Sent back verbatim with the block (SDK `BetaCompactionBlock.signature`, `tool_changes`).
        ...(b.signature !== undefined ? { signature: b.signature } : {}),
        ...(b.tool_changes !== undefined
          ? {
              toolChanges:
                b.tool_changes === null
                  ? null
                  : (JSON.parse(JSON.stringify(b.tool_changes)) as Record<string, unknown>[]),
            }
          : {}),
      });
    else if (b.type === 'text') content.push({ type: 'text', text: b.text });
    else if (b.type === 'tool_use') content.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input });
    else if (b.type === 'thinking') content.push({ type: 'thinking', thinking: b.thinking, signature: b.signature });
    else if (b.type === 'redacted_thinking') content.push({ type: 'redacted_thinking', data: b.data });
    else if (b.type === 'server_tool_use' || b.type.endsWith('_tool_result')) content.push(serverToolOf(b));
  }
  const u = final.usage;
  const report =
    'context_management' in final
      ? parseServerReport(final.context_management, 'iterations' in u ? u.iterations : undefined)
      : undefined;
  return {
    content,
    stopReason: final.stop_reason ?? null,
    model: final.model,
    ...(requestId ? { requestId } : {}),
    ...(typeof final.id === 'string' && final.id ? { messageId: final.id } : {}),
    ...(final.diagnostics
      ? { cacheMissReason: cacheMissReasonOf(final.diagnostics.cache_miss_reason as CacheMissReason | null) }
      : {}),
    usage: usageOf(u),
    ...(report ? { server: report } : {}),
  };
}

/** The SDK's usage (of a final message, or of `message_start`'s) in the core's terms; a missing cache figure is 0. */
export function usageOf(u: (Message | BetaMessage)['usage']): Usage {
  return {
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
    ...(u.cache_creation
      ? {
          cache_creation: {
            ephemeral_5m_input_tokens: u.cache_creation.ephemeral_5m_input_tokens ?? 0,
            ephemeral_1h_input_tokens: u.cache_creation.ephemeral_1h_input_tokens ?? 0,
          },
        }
      : {}),
  };
}

/**
 * A server tool block (SDK `ServerToolUseBlock`, `ToolSearchToolResultBlock`, `WebSearchToolResultBlock`…)
 * as the core keeps it: its JSON as the API sent it, so it goes back verbatim. A `caller` of
 * `{type: 'direct'}` (the default, SDK `DirectCaller`) is left out: the param accepts it but does not need it.
 */
function serverToolOf(b: object): AssistantContent {
  const { caller, ...rest } = b as { caller?: { type?: unknown } } & Record<string, unknown>;
  const raw = caller === undefined || caller.type === 'direct' ? rest : { ...rest, caller };
  return { type: 'server_tool', raw: JSON.parse(JSON.stringify(raw)) as ServerToolRaw };
}

/** Forwards the stream events the core shows live (text, thinking and tool-input deltas, tool starts) to `onEvent`. */
export function forward(
  event: RawMessageStreamEvent | BetaRawMessageStreamEvent,
  onEvent: (event: LlmEvent) => void,
): void {
  if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
    onEvent({
      type: 'tool_use_started',
      index: event.index,
      id: event.content_block.id,
      name: event.content_block.name,
    });
  } else if (event.type === 'content_block_delta') {
    const d = event.delta;
    if (d.type === 'text_delta') onEvent({ type: 'text_delta', index: event.index, text: d.text });
    else if (d.type === 'input_json_delta')
      onEvent({ type: 'tool_input_delta', index: event.index, partialJson: d.partial_json });
    else if (d.type === 'thinking_delta') onEvent({ type: 'thinking_delta', index: event.index, thinking: d.thinking });
  }
  // Other events (message_start/delta/stop, ping, signature deltas, future types) need no forwarding.
}

/**
 * The API's cache-miss reason in the core's terms (SDK type `CacheMissReason`, see
 * https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics). A reason type this
 * build does not know counts as `unavailable`; a missing token count as 0.
 */
export function cacheMissReasonOf(reason: CacheMissReason | null | undefined): ApiCacheMissReason | null {
  if (!reason) return null;
  switch (reason.type) {
    case 'model_changed':
    case 'system_changed':
    case 'tools_changed':
    case 'messages_changed':
      return {
        type: reason.type,
        cache_missed_input_tokens:
          typeof reason.cache_missed_input_tokens === 'number' ? reason.cache_missed_input_tokens : 0,
      };
    case 'previous_message_not_found':
      return { type: 'previous_message_not_found' };
    default:
      return { type: 'unavailable' };
  }
}
