/**
 * How a parent session starts a subagent: the host opens a child session (its own file,
 * context window, model, estimator, compactor and cache breakpoints, read-only tools) and
 * runs it through the same turn loop. The core drives it through this port only.
 */
import type { ToolCall } from '../tools/toolRunner';
import type { AgentEvent } from './events';
import type { Message } from '../conversation/conversationModel';
import type { SendResult } from './sessionCore';
import type { SubagentSettings } from '../subagents/subagentSettings';

/** The task a subagent is given. */
export interface SubagentTask {
  /** The parent's task call. */
  readonly toolUseId: string;
  readonly description: string;
  readonly prompt: string;
}

/** A child session, opened for one task. */
export interface ChildAgent {
  /** The child session's id (its file, listed under its parent). */
  readonly sessionId: string;
  /** The model it runs on. */
  readonly model: string;
  /** Runs the task as the child's one turn; settles when the turn ended (never rejects). */
  send(prompt: string): Promise<SendResult>;
  /** Stops the child's running turn. */
  stop(): void;
  /** The child's conversation as it stands. */
  messages(): readonly Message[];
  /**
   * Closes the child session's file and keeps its transcript where the parent's recall finds
   * it. Never rejects; what could not be kept is returned as a sentence (else undefined).
   */
  close(): Promise<string | undefined>;
}

/** Opens child sessions for one parent session. */
export interface SubagentLauncher {
  /**
   * Opens a child session for `task`; its events go to `onEvent`. An error value (one
   * sentence) when it cannot be opened (its file cannot be created, no model, …).
   */
  open(
    task: SubagentTask,
    onEvent: (event: AgentEvent) => void,
  ): Promise<{ readonly ok: true; readonly child: ChildAgent } | { readonly ok: false; readonly error: string }>;
  /** One line naming a child's tool call (`Read src/a.ts`). */
  describe(call: ToolCall): string;
  /** The subagents' settings now (read per call). */
  settings(): SubagentSettings;
}
