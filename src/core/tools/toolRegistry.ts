/**
 * The one place tools are routed by name: the registry holds ToolDefinitions (built-ins, MCP
 * tools), offers their schemas to the model in a stable order, and runs a call — look up,
 * validate, ask for consent where the definition says so, execute, cap, time. It is the
 * agent's ToolRunner; a session adds its own tools (recall) with {@link withSessionTools}.
 * Pure: the clock and the approver are given.
 */
import type { ToolCall, ToolCallState, ToolOutcome, ToolRunner } from './toolRunner';
import type { ToolResultContent, ToolSchema } from '../conversation/conversationModel';
import { toWellFormed } from '../platform/text';
import { declinedMessage, type ApprovalDecision } from './approvalWords';
import { capOutput, DEFAULT_TOOL_LIMITS } from './limits';
import type { AnyToolDefinition, ToolExecution, ToolRunContext } from './toolDefinition';

/** A call waiting for the user's consent (definitions with approval `ask`). */
export interface CallApprovalRequest {
  readonly definition: AnyToolDefinition;
  /** The checked input. */
  readonly input: unknown;
  readonly toolUseId: string;
}

/** Asks the user about a call; resolves (never rejects) with their answer. A dismissed prompt is a refusal. */
export type CallApprover = (request: CallApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/** What the registry needs. */
export interface ToolRegistryDeps {
  /** The tools, read on every call and listing (a server's list may change between turns). */
  readonly definitions: () => readonly AnyToolDefinition[];
  /** Consent for definitions with approval `ask`; without it such calls are refused. */
  readonly approve?: CallApprover;
  /** Characters of one result's text at most. Default: read_file's cap. */
  readonly maxResultChars?: number;
  /** Milliseconds clock for `durationMs`. */
  readonly now: () => number;
}

/** Routes calls to the tools of `deps.definitions`. Never throws. */
export class ToolRegistry implements ToolRunner {
  private readonly offeredSchemas = new WeakMap<AnyToolDefinition, ToolSchema>();
  private lastOffered: { readonly defs: readonly AnyToolDefinition[]; readonly schemas: readonly ToolSchema[] } = {
    defs: [],
    schemas: [],
  };

  constructor(private readonly deps: ToolRegistryDeps) {}

  /** Every definition, offered or not. */
  definitions(): readonly AnyToolDefinition[] {
    return this.deps.definitions();
  }

  /** The definition named `name`, if any. */
  get(name: string): AnyToolDefinition | undefined {
    return this.deps.definitions().find((d) => d.schema.name === name);
  }

  /**
   * The schemas to offer the model: the offered definitions' in their order, each with its
   * `effect` (and MCP `server`) stamped on. The same array and schema objects while the
   * definitions are the same objects (token counts are memoised on them).
   */
  schemas(): readonly ToolSchema[] {
    const defs = this.deps.definitions().filter((d) => d.offered?.() ?? true);
    const last = this.lastOffered;
    if (defs.length === last.defs.length && defs.every((d, i) => d === last.defs[i])) return last.schemas;
    const schemas = defs.map((d) => this.offeredSchema(d));
    this.lastOffered = { defs, schemas };
    return schemas;
  }

  /**
   * Runs `call`. The outcome's text is at most `maxResultChars` characters (each text part of
   * a mixed result), never empty, well-formed UTF-16, and `isError` is set for an unknown
   * tool, invalid input, a refusal, a failure, a decline and Stop. Every wait for the user's
   * approval (the registry's own, or the tool's through `askUser`) is told to `onState`,
   * measured as `approvalMs` and left out of `durationMs`.
   */
  async run(call: ToolCall, signal: AbortSignal, onState?: (state: ToolCallState) => void): Promise<ToolOutcome> {
    const now = this.deps.now;
    const started = now();
    let approvalMs: number | undefined;
    const askUser = async (ask: () => Promise<ApprovalDecision>): Promise<ApprovalDecision> => {
      const asked = now();
      onState?.('awaiting_approval');
      try {
        return await ask();
      } finally {
        approvalMs = (approvalMs ?? 0) + Math.max(0, now() - asked);
        onState?.('running');
      }
    };
    let result: ToolExecution;
    try {
      result = await this.dispatch(call, signal, askUser);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      result = failed(`${call.name} failed: ${message}. Check the input and try again, or try another approach.`);
    }
    const waited = approvalMs ?? 0;
    return {
      content: finish(result.content, this.deps.maxResultChars ?? DEFAULT_TOOL_LIMITS.maxResultChars),
      isError: result.isError,
      durationMs: Math.max(0, Math.round(now() - started - waited)),
      ...(approvalMs !== undefined ? { approvalMs: Math.round(approvalMs) } : {}),
    };
  }

  private async dispatch(
    call: ToolCall,
    signal: AbortSignal,
    askUser: NonNullable<ToolRunContext['askUser']>,
  ): Promise<ToolExecution> {
    const definition = this.get(call.name);
    if (!definition) {
      const names = this.schemas().map((s) => s.name);
      return failed(`Unknown tool "${call.name}". The tools are: ${names.join(', ')}.`);
    }
    const checked = definition.validate(call.input);
    if (!checked.ok) return failed(checked.error);
    if (signal.aborted) return failed(stoppedMessage(call.name));
    if (definition.approval === 'ask') {
      if (!this.deps.approve)
        return failed(`${call.name}: this tool needs the user's approval, and none can be asked here.`);
      const approve = this.deps.approve;
      const decision = await askUser(() => approve({ definition, input: checked.input, toolUseId: call.id }, signal));
      if (signal.aborted) return failed(stoppedMessage(call.name));
      if (!decision.approved)
        return failed(
          `${declinedMessage(`this call to ${call.name}`, decision)}\nIt did not run. Do not call it again unchanged; adjust to the user's reason or ask them.`,
        );
    }
    return definition.execute(checked.input, { signal, toolUseId: call.id, askUser });
  }

  private offeredSchema(d: AnyToolDefinition): ToolSchema {
    const known = this.offeredSchemas.get(d);
    if (known) return known;
    const server = d.origin.kind === 'mcp' ? { server: d.origin.server } : {};
    const schema: ToolSchema = { ...d.schema, effect: d.effect, ...server };
    this.offeredSchemas.set(d, schema);
    return schema;
  }
}

/**
 * A ToolRunner that runs the session's own tools (`definitions`, e.g. recall) itself and passes
 * every other call to `inner`. Never throws, like any ToolRunner.
 */
export function withSessionTools(
  inner: ToolRunner,
  definitions: readonly AnyToolDefinition[],
  now: () => number,
  maxResultChars?: number,
): ToolRunner {
  const own = new ToolRegistry({ definitions: () => definitions, now, ...(maxResultChars ? { maxResultChars } : {}) });
  return {
    run: (call, signal, onState) =>
      own.get(call.name) ? own.run(call, signal, onState) : inner.run(call, signal, onState),
  };
}

/** The result text when a call was stopped by the user. */
export function stoppedMessage(tool: string): string {
  return `${tool}: stopped by the user before it finished.`;
}

function failed(text: string): ToolExecution {
  return { content: text, isError: true };
}

function finish(content: ToolResultContent, maxChars: number): ToolResultContent {
  if (typeof content === 'string') return toWellFormed(capOutput(content === '' ? '(no output)' : content, maxChars));
  const parts = content.map((p) => (p.type === 'text' ? { ...p, text: toWellFormed(capOutput(p.text, maxChars)) } : p));
  const visible = parts.filter((p) => p.type !== 'text' || p.text !== '');
  return visible.length === 0 ? '(no output)' : visible;
}
