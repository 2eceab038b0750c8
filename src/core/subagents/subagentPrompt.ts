/**
 * The subagent's system prompt: its parent's (static prompt, project instructions, workspace
 * facts: the same rules and facts) followed by one block saying what a subagent is and what
 * its last message must be. Pure.
 */
import type { TextBlock } from '../conversation/conversationModel';
import type { Clock, IdSource } from '../platform/platformPorts';
import { systemTextBlock } from '../projectContext/staticPrompt';

/** What the subagent is told about its role. */
export const SUBAGENT_PROMPT = [
  'You are a subagent: the main agent handed you the task in the user message and sees nothing of your work but your final message.',
  '- Work on the task with your tools until you can answer it; you cannot ask questions, and nobody reads your intermediate messages.',
  '- Your final message is your report to the main agent: the answer first, then the evidence it needs (file paths with line numbers, symbol names, short quotes). Be complete but brief, a few hundred words at most unless the task asks for more.',
  '- Say plainly what you could not find or verify. Do not invent paths or code.',
].join('\n');

/** `parent`'s system blocks followed by the subagent block. */
export function subagentSystem(
  parent: readonly TextBlock[],
  deps: { readonly clock: Clock; readonly ids: IdSource },
): TextBlock[] {
  return [...parent, systemTextBlock(SUBAGENT_PROMPT, deps)];
}
