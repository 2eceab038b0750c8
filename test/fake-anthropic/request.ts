/**
 * The request shape the server works on once validation passed, in the SDK's own types, and
 * helpers to read it (content as blocks, the last user text).
 */
import type {
  CacheControlEphemeral,
  ContentBlockParam,
  MessageParam,
  TextBlockParam,
  ToolUnion,
} from '@anthropic-ai/sdk/resources/messages';

/** A validated `/v1/messages` or `/v1/messages/count_tokens` body (only user/assistant messages). */
export interface ApiRequest {
  readonly model: string;
  /** Absent on count_tokens. */
  readonly max_tokens?: number;
  readonly messages: readonly MessageParam[];
  readonly system?: string | readonly TextBlockParam[];
  readonly tools?: readonly ToolUnion[];
  readonly tool_choice?: unknown;
  readonly thinking?: unknown;
  /** Cache diagnostics opt-in (`previous_message_id`), checked by `checkDiagnostics`. */
  readonly diagnostics?: unknown;
  readonly stream?: boolean;
  /** Automatic caching: a breakpoint on the last cacheable block. */
  readonly cache_control?: CacheControlEphemeral | null;
}

/** The content of a message as a list of blocks (a string is one text block). */
export function blocksOf(message: MessageParam): readonly ContentBlockParam[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** The text of the last user message (its text blocks joined; tool results not included). */
export function lastUserText(req: ApiRequest): string {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i];
    if (m?.role !== 'user') continue;
    return blocksOf(m)
      .flatMap((b) => (b.type === 'text' ? [b.text] : []))
      .join('\n');
  }
  return '';
}

/** The text blocks of the first user message, joined by newlines ('' when there is none). */
export function firstUserText(req: ApiRequest): string {
  const m = req.messages.find((x) => x.role === 'user');
  return m
    ? blocksOf(m)
        .flatMap((b) => (b.type === 'text' ? [b.text] : []))
        .join('\n')
    : '';
}

/** Number of `tool_result` blocks in the last user message. */
export function lastToolResultCount(req: ApiRequest): number {
  const m = req.messages.at(-1);
  return m?.role === 'user' ? blocksOf(m).filter((b) => b.type === 'tool_result').length : 0;
}
