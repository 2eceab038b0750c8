/**
 * One definition per tool: what the model sees (schema), what the pipeline knows about it
 * (effect, origin, approval, the argument it acts on) and how it runs (validate, execute).
 * Built-in tools, MCP tools and session tools (recall) are all ToolDefinitions, routed by name
 * through one ToolRegistry (toolRegistry.ts). Pure types.
 */
import type { ToolEffect, ToolResultContent, ToolSchema } from '../conversation/conversationModel';
import type { ApprovalDecision } from './approvalWords';

/** Every ToolEffect, in the order the views list them. */
export const TOOL_EFFECTS: readonly ToolEffect[] = [
  'read',
  'list',
  'search',
  'edit',
  'run',
  'recall',
  'plan',
  'delegate',
  'external',
];

/**
 * Who consents to a call before it runs:
 * - `none`: runs without asking (reads, searches, recall);
 * - `own`: the tool asks inside its execution, where it can show what it will do
 *   (edit_file's diff, run_command's command and folder);
 * - `ask`: the registry asks the approver with the tool's name, description and input before
 *   executing (MCP tools; the approver may answer from the user's "always allow").
 */
export type ToolApproval = 'none' | 'own' | 'ask';

/** Where a tool comes from. */
export type ToolOrigin =
  | { readonly kind: 'builtin' }
  /** Bound per session (recall, update_plan, task): executed through the session's overlay. */
  | { readonly kind: 'session' }
  /** A tool of an MCP server: `server` is the configured server name, `tool` the server's own tool name. */
  | { readonly kind: 'mcp'; readonly server: string; readonly tool: string };

/** A checked input, or one sentence for the model naming the tool, the parameter and the fix. */
export type InputCheck<I> = { readonly ok: true; readonly input: I } | { readonly ok: false; readonly error: string };

/** What a tool returns: content for the model (text, or text and images), and whether the call failed. */
export interface ToolExecution {
  readonly content: ToolResultContent;
  readonly isError: boolean;
}

/** What an execution gets besides its input. */
export interface ToolRunContext {
  /** Aborted when the user pressed Stop (or the call's timeout passed): end early, say so. */
  readonly signal: AbortSignal;
  /** The API's id of the call (toolu_…). */
  readonly toolUseId: string;
  /**
   * Wraps the wait for the user's answer (an edit's diff, a command): meanwhile the call shows
   * as awaiting approval, and the wait is left out of its duration. Absent: nothing measures it.
   */
  readonly askUser?: (ask: () => Promise<ApprovalDecision>) => Promise<ApprovalDecision>;
}

/**
 * A tool. `execute` receives only input that `validate` accepted, may throw (the registry
 * turns a throw into an error result naming the tool) and must honour `signal`.
 */
export interface ToolDefinition<I = unknown> {
  /** Name, description and input JSON schema, as the model sees them. */
  readonly schema: ToolSchema;
  readonly effect: ToolEffect;
  readonly origin: ToolOrigin;
  readonly approval: ToolApproval;
  /** The tool says it changes nothing (built-in reads; an MCP tool's `readOnlyHint`). */
  readonly readOnly: boolean;
  /** Runtime check of the model's JSON against the schema. Never throws. */
  validate(input: unknown): InputCheck<I>;
  /**
   * The main argument a call acts on, as the model wrote it: the path of a read, list or edit,
   * the pattern of a search, the command of a run, the query of a recall. Undefined when none.
   */
  target(input: I): string | undefined;
  /** What a search (or list) is limited to — its folder or glob — when not the whole workspace. */
  scope?(input: I): string | undefined;
  /**
   * The lines an edit adds and removes, when its input tells them (a `replace_all` does not:
   * the occurrences are counted only when it runs).
   */
  lines?(input: I): { readonly added: number; readonly removed: number } | undefined;
  execute(input: I, ctx: ToolRunContext): Promise<ToolExecution>;
  /**
   * Whether the tool is offered to the model now (a setting may turn it off); absent: always.
   * A call to a tool not offered still reaches `execute`, which refuses it with the reason.
   */
  readonly offered?: () => boolean;
}

/** A definition with its input type erased, as the registry holds it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolDefinition = ToolDefinition<any>;

/**
 * A tool's contract without its execution: what the pure core knows of a built-in or session
 * tool (its schema, effect, approval and input check). The host binds `execute` to it.
 */
export type ToolSpec<I = unknown> = Omit<ToolDefinition<I>, 'execute'>;

/** `spec` with its execution bound: the definition the registry routes to. */
export function bindTool<I>(spec: ToolSpec<I>, execute: ToolDefinition<I>['execute']): ToolDefinition<I> {
  return { ...spec, execute };
}
