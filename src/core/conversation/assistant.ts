import type { Block, ConversationState, Message, ServerSummaryFields, ServerToolRaw } from './conversationModel';
import { isServerToolRaw, serverCallId } from './serverTools';
import type { Clock, IdSource } from '../platform/platformPorts';

/** Content of an assistant answer as the API returned it (already parsed from the stream). */
export type AssistantContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: unknown }
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature?: string }
  /** Safety-redacted thinking: opaque `data` to send back unchanged (SDK `RedactedThinkingBlock`). */
  | { readonly type: 'redacted_thinking'; readonly data: string }
  /**
   * A server compaction block (`compact_20260112`, or the answer to a compaction request): the
   * summary and the fields to send back verbatim (ServerSummaryFields).
   */
  | ({ readonly type: 'compaction'; readonly content: string } & Omit<ServerSummaryFields, 'onDemand'>)
  /**
   * A server tool block (`server_tool_use`, `tool_search_tool_result`…: SDK `ServerToolUseBlock`,
   * `ToolSearchToolResultBlock`), its JSON as the API sent it, to be kept and sent back verbatim.
   */
  | { readonly type: 'server_tool'; readonly raw: ServerToolRaw };

/** Result of appending an answer: the new state, or why it was refused (state unchanged). */
export type AppendResult =
  | { readonly ok: true; readonly state: ConversationState; readonly message: Message }
  | { readonly ok: false; readonly error: string };

/**
 * Appends the assistant's answer to the conversation. Empty text parts are dropped (the
 * API rejects them and a stream may produce them), and so is thinking with neither text nor
 * signature (signed thinking with empty text, display `omitted`, is kept to be sent back).
 * The answer is refused when nothing is left, when it does not follow a user message, or
 * when a tool call id repeats one already in the conversation.
 */
export function appendAssistantMessage(
  state: ConversationState,
  content: readonly AssistantContent[],
  deps: { readonly clock: Clock; readonly ids: IdSource },
): AppendResult {
  const last = state.messages.at(-1);
  if (!last || last.role !== 'user') return { ok: false, error: 'An assistant answer must follow a user message.' };
  const known = new Set(state.messages.flatMap((m) => m.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))));
  const now = deps.clock.now();
  const blocks: Block[] = [];
  for (const c of content) {
    const meta = {
      id: deps.ids.next('blk'),
      tier: 2 as const,
      source: 'assistant' as const,
      createdAt: now,
      pinned: false,
      compactable: true,
    };
    if (c.type === 'text') {
      if (c.text.trim()) blocks.push({ type: 'text', text: c.text, meta });
    } else if (c.type === 'thinking') {
      // A signed block is kept even when its text is empty (display `omitted`): the API wants it back as returned.
      if (c.thinking.trim() || c.signature)
        blocks.push({
          type: 'thinking',
          thinking: c.thinking,
          ...(c.signature ? { signature: c.signature } : {}),
          meta,
        });
    } else if (c.type === 'redacted_thinking') {
      if (c.data) blocks.push({ type: 'thinking', thinking: '', redactedData: c.data, meta });
    } else if (c.type === 'compaction') {
      // The summary stands for every earlier turn; its id names the record the session makes of it (serverCompaction.ts).
      if (c.content.trim())
        blocks.push({
          type: 'summary',
          text: c.content,
          compactionId: deps.ids.next('cmp'),
          turnRange: [1, last.turn],
          server: serverFieldsOf(c),
          meta: { ...meta, source: 'compactor', compactable: false },
        });
    } else if (c.type === 'server_tool') {
      // A block of a shape the API does not return is left out here rather than refused later.
      if (isServerToolRaw(c.raw))
        blocks.push({ type: 'server_tool', raw: c.raw, meta: { ...meta, toolUseId: serverCallId(c.raw) } });
    } else {
      if (known.has(c.id))
        return { ok: false, error: `The tool call id ${c.id} was already used in this conversation.` };
      known.add(c.id);
      const effect = state.tools.find((t) => t.name === c.name)?.effect;
      blocks.push({
        type: 'tool_use',
        id: c.id,
        name: c.name,
        input: c.input,
        meta: { ...meta, toolUseId: c.id, ...(effect ? { effect } : {}) },
      });
    }
  }
  if (blocks.length === 0) return { ok: false, error: 'The answer was empty.' };
  const message: Message = { id: deps.ids.next('msg'), role: 'assistant', blocks, turn: last.turn };
  return { ok: true, state: { ...state, messages: [...state.messages, message] }, message };
}

/** The fields of a compaction block to keep and send back verbatim (those the API sent). */
export function serverFieldsOf(c: Omit<ServerSummaryFields, 'onDemand'>): ServerSummaryFields {
  return {
    ...(c.encryptedContent !== undefined ? { encryptedContent: c.encryptedContent } : {}),
    ...(c.signature !== undefined ? { signature: c.signature } : {}),
    ...(c.toolChanges !== undefined ? { toolChanges: c.toolChanges } : {}),
  };
}

/**
 * Whether `m` opens with the block a compaction request returned (compaction on demand): such a
 * message goes first in `messages`, assistant though it is, with no placeholder before it —
 * "The `compaction` block is not the first block of the conversation" is an error (SDK
 * `CompactionBlockMisplacedError`; https://platform.claude.com/docs/en/build-with-claude/compaction-on-demand).
 */
export function opensWithOnDemandSummary(m: Message): boolean {
  const b = m.blocks[0];
  return m.role === 'assistant' && b?.type === 'summary' && b.server?.onDemand === true && b.text.trim() !== '';
}
