import type { Message } from '../src/core/conversation/conversationModel';
import { CLEARED_PLACEHOLDER } from '../test/fake-anthropic/contextManagement';

/** `messages` with the tool results of `ids` replaced by the API's placeholder (as the model saw them). */
export function withClearedResults(messages: readonly Message[], ids: readonly string[]): Message[] {
  const gone = new Set(ids);
  return messages.map((m) =>
    m.blocks.some((b) => b.type === 'tool_result' && gone.has(b.toolUseId))
      ? {
          ...m,
          blocks: m.blocks.map((b) =>
            b.type === 'tool_result' && gone.has(b.toolUseId) ? { ...b, content: CLEARED_PLACEHOLDER } : b,
          ),
        }
      : m,
  );
}
