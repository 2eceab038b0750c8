import type { TextBlock } from '../conversation/conversationModel';
import type { Clock, IdSource } from '../platform/platformPorts';
import { withProjectContext } from './system';

/**
 * The agent's static system prompt text: who it is, how the user's editor context and the
 * project context reach it (the tags it will see), and how it should work. It names no
 * workspace, platform or date (those are in the workspace facts block that follows it), so it
 * is byte-identical across sessions, workspaces and days and its cache entry is shared.
 */
export const STATIC_SYSTEM_PROMPT = [
  "You are a coding agent working inside the user's VS Code workspace, through the Context Pipeline extension.",
  '',
  'Context that follows this prompt in the system prompt:',
  '- <project_instructions path="…"> blocks hold the project\'s instruction files (AGENTS.md, CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md at a workspace folder\'s root). Follow them unless the user says otherwise; they were written by the project, not by the extension.',
  "- A <workspace_facts> block gives the workspace folders, the platform, today's date and the state of the git repositories (branch, changed files, recent commits) when the session started.",
  '',
  'Context you may see in user messages:',
  '- <ide_opened_file> says which file the user opened; <ide_selection> holds text the user selected. Either may or may not be related to the task.',
  '- <system-reminder> blocks come from the extension, not the user. One may carry the instruction file (AGENTS.md or CLAUDE.md) of a folder you just read or edited in; its instructions apply to the files under that folder and take precedence over the more general ones.',
  '- <conversation_summary turns="a-b"> stands in for earlier turns that were compacted; their original messages and tool results are kept: search and read them with the recall tool when the summary lacks a detail you need.',
  '- A very large paste is saved to a file and referenced by path; read the file when you need its content.',
  '',
  'Work carefully: read before you edit, keep changes minimal, and say what you changed and why.',
].join('\n');

/**
 * The agent's system prompt as one block: {@link STATIC_SYSTEM_PROMPT}, source `system`,
 * pinned and never compactable. Only its id and creation time vary; the text never does.
 */
export function agentSystemPrompt(deps: { readonly clock: Clock; readonly ids: IdSource }): TextBlock {
  return systemTextBlock(STATIC_SYSTEM_PROMPT, deps);
}

/** `text` as a block of the system prompt: source `system`, tier 0, pinned, never compactable. */
export function systemTextBlock(text: string, deps: { readonly clock: Clock; readonly ids: IdSource }): TextBlock {
  return {
    type: 'text',
    text,
    meta: {
      id: deps.ids.next('sys'),
      tier: 0,
      source: 'system',
      createdAt: deps.clock.now(),
      pinned: true,
      compactable: false,
    },
  };
}

/**
 * The one builder of a session's system prompt: the static prompt block, then the project
 * context in cache order (see `withProjectContext`; none until it is read). The agent of an
 * opened session and the request preview of a new one both start from it.
 */
export function sessionSystemPrompt(
  deps: { readonly clock: Clock; readonly ids: IdSource },
  project: readonly TextBlock[] = [],
): TextBlock[] {
  return withProjectContext([agentSystemPrompt(deps)], project);
}
