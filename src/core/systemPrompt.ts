import type { TextBlock } from './model';
import type { Clock, IdSource } from './ports';

/** Facts about where the agent runs, given by the host. */
export interface AgentEnvironment {
  readonly workspaceName: string;
  readonly platform: string;
  /** ISO date (YYYY-MM-DD) of today. */
  readonly date: string;
}

/**
 * The agent's system prompt, as one block: who it is, how the user's editor context
 * reaches it (the tags it will see), and how it should work. Stable text, so it caches.
 */
export function agentSystemPrompt(env: AgentEnvironment, deps: { readonly clock: Clock; readonly ids: IdSource }): TextBlock {
  const text = [
    'You are a coding agent working inside the user\'s VS Code workspace, through the Context Pipeline extension.',
    `Workspace: ${env.workspaceName}. Platform: ${env.platform}. Today is ${env.date}.`,
    '',
    'Context you may see in user messages:',
    '- <ide_opened_file> says which file the user opened; <ide_selection> holds text the user selected. Either may or may not be related to the task.',
    '- <system-reminder> blocks come from the extension, not the user.',
    '- <conversation_summary turns="a-b"> stands in for earlier turns that were compacted; their original messages and tool results are kept: search and read them with the recall tool when the summary lacks a detail you need.',
    '- A very large paste is saved to a file and referenced by path; read the file when you need its content.',
    '',
    'Work carefully: read before you edit, keep changes minimal, and say what you changed and why.',
  ].join('\n');
  return { type: 'text', text, meta: { id: deps.ids.next('sys'), tier: 0, source: 'system', createdAt: deps.clock.now(), pinned: true, compactable: false } };
}
