import type { TextBlock } from '../src/core/conversation/conversationModel';

/** The text of the system block standing in for a transcript's unseen system prompt and tools. */
export const SYSTEM_STANDIN = "(the transcript's system prompt and tools, not in the file)";

/**
 * The replay's system prompt: one block standing in for the agent's system prompt and tools,
 * which the transcript does not hold (the replay counts it as the transcript's overhead). A
 * system prompt gives the request the stable breakpoint the extension places there, so a
 * compaction does not write it again.
 */
export function systemStandin(createdAt: number): TextBlock {
  return {
    type: 'text',
    text: SYSTEM_STANDIN,
    meta: { id: 'replay-system', source: 'system', tier: 0, createdAt, pinned: false, compactable: false },
  };
}
