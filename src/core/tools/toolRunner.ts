/**
 * The port the agent loop runs tools through: a call, its outcome as it goes back to the model,
 * and where a running call is. The host implements it over the ToolRegistry (toolRegistry.ts);
 * tests implement it with fakes.
 */
import type { ToolResultContent } from '../conversation/conversationModel';

/** A tool call to run. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

/** The outcome of a tool call, as it goes back to the model. */
export interface ToolOutcome {
  readonly content: ToolResultContent;
  readonly isError: boolean;
  /** Wall time the call took, for the UI, without the time the user took to answer its approval. */
  readonly durationMs?: number;
  /** The time the user took to answer the call's approval (absent when nobody was asked). */
  readonly approvalMs?: number;
}

/** Where a running call is: working, or waiting for the user's answer to its approval. */
export type ToolCallState = 'running' | 'awaiting_approval';

/** Runs the agent's tools in the workspace. Never throws: failures are `isError` outcomes. */
export interface ToolRunner {
  /** `onState` hears when the call starts and stops waiting for the user's approval. */
  run(call: ToolCall, signal: AbortSignal, onState?: (state: ToolCallState) => void): Promise<ToolOutcome>;
}
