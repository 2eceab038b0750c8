/**
 * Context Pipeline's public API, version 1: a slot for context engines.
 *
 * Another extension gets it from ours and registers an engine under an id; the user picks an
 * engine with the `contextPipeline.contextEngine` setting. Self-contained (no imports), so an
 * extension can copy this file, or reference it from the installed extension's folder
 * (`api/context-pipeline.d.ts`). See docs/context-engines.md.
 *
 * ```ts
 * const ext = vscode.extensions.getExtension<ContextPipelineApi>('context-pipeline.context-pipeline');
 * const api = await ext?.activate();
 * context.subscriptions.push(api.v1.registerContextEngine('my-engine', () => myEngine));
 * ```
 *
 * Everything an engine sees and returns is plain, serialisable data: messages in the shape of
 * the Anthropic Messages API's `MessageParam`, never the extension's own objects. Whatever an
 * engine returns still goes through the pipeline's last steps (made a valid request, counted,
 * cache breakpoints placed, the ledger, secrets redacted); an engine that throws, takes longer
 * than `limits.timeoutMs`, returns data that is not messages, or more tokens than its budget,
 * is not used for that request: the built-in `layered` engine serves it, the chat says so
 * once, and the request ledger records why.
 */

/** A content block as the Messages API takes it (`text`, `image`, `tool_use`, `tool_result`, `thinking`, …). */
export interface EngineContentBlock {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** A message as the Messages API takes it (`MessageParam`). */
export interface EngineMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string | readonly EngineContentBlock[];
}

/** A tool as the request offers it: name, description, JSON schema of its input. */
export interface EngineTool {
  readonly name: string;
  readonly description?: string;
  readonly input_schema?: unknown;
}

/** Token counts of the last request, as the API reported them. */
export interface EngineUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation_input_tokens: number;
}

/** What an engine says about itself. */
export interface ContextEngineInfo {
  /** Shown to the user (budget panel, status bar, request ledger). */
  readonly name: string;
  readonly version?: string;
  /**
   * True: the engine keeps the history within its budget itself (through `assemble`, and
   * `compact` when the user asks): the pipeline's own compaction stays off, except its guard
   * on oversized tool results and its recovery when the API still says the prompt is too long.
   */
  readonly ownsCompaction: boolean;
}

/** The conversation as an engine sees it before a request. */
export interface EngineContext {
  /** The chat session's id (stable across reloads of the same session). */
  readonly sessionId: string;
  readonly model: string;
  /** The whole history, oldest first (the session keeps it; what `assemble` leaves out stays in it). */
  readonly messages: readonly EngineMessage[];
  /** The pipeline's estimate of each message's tokens, parallel to `messages`. */
  readonly messageTokens: readonly number[];
  /** The system prompt's text blocks. */
  readonly system: readonly string[];
  readonly tools: readonly EngineTool[];
  /** Tokens the returned messages may take at most: the usable window less system, tools and the answer's room. */
  readonly tokenBudget: number;
  /** The last request's usage, when there was one. */
  readonly lastUsage?: EngineUsage;
}

/** What `assemble` returns: the messages to send for this request (the session's history is not changed). */
export interface AssembleResult {
  readonly messages: readonly EngineMessage[];
}

/** What `compact` returns: which messages (by index into `context.messages`, `to` excluded) a summary replaces. */
export interface CompactResult {
  readonly from: number;
  readonly to: number;
  /** The summary that stands in for them (kept as a compaction: listed in the Compactions view, restorable). */
  readonly summary: string;
}

/** A subagent about to start (the `task` tool): the parent session, the call, and what it was asked. */
export interface SubagentSpawn {
  readonly parentSessionId: string;
  /** The parent's `task` call. */
  readonly toolUseId: string;
  readonly description: string;
  readonly prompt: string;
}

/** A subagent that ended: its own session's id and how it ended. */
export interface SubagentEnded extends SubagentSpawn {
  readonly subagentSessionId: string;
  readonly state: 'done' | 'failed' | 'stopped';
}

/** An engine. Only `info` and `assemble` are required. */
export interface ContextEngine {
  readonly info: ContextEngineInfo;
  /** Before a session's first request through this engine (a new or a resumed session). */
  bootstrap?(context: EngineContext): void | Promise<void>;
  /** The messages to send for this request, within `context.tokenBudget`. */
  assemble(context: EngineContext): AssembleResult | Promise<AssembleResult>;
  /** Compact Now, and when the pipeline needs room under an engine that owns compaction; `undefined`: nothing to do. */
  compact?(context: EngineContext): CompactResult | undefined | Promise<CompactResult | undefined>;
  /** After a turn ended, with the history as it stands. */
  afterTurn?(context: EngineContext): void | Promise<void>;
  /** Before a subagent starts (it runs in its own session, with the layered engine). */
  prepareSubagentSpawn?(spawn: SubagentSpawn): void | Promise<void>;
  /** After a subagent ended; its answer is the `task` call's result in the next request. */
  onSubagentEnded?(ended: SubagentEnded): void | Promise<void>;
  /** The engine is no longer used (another was chosen, the session closed, or it was unregistered). */
  dispose?(): void;
}

/** Makes an engine for one chat session. */
export type ContextEngineFactory = (session: { readonly sessionId: string }) => ContextEngine;

/** Something to undo (VS Code's `Disposable` shape). */
export interface EngineRegistration {
  dispose(): void;
}

/** Version 1 of the API. */
export interface ContextPipelineApiV1 {
  /**
   * Registers an engine under `id` (letters, digits, `-`, `_`, `.`; not a built-in's id:
   * `layered`, `server-compact`, `sliding-window`). Throws when the id is taken or malformed.
   * Dispose the result to unregister (sessions using it fall back to `layered`).
   */
  registerContextEngine(id: string, factory: ContextEngineFactory): EngineRegistration;
  /** The ids registered now, built-ins first. */
  contextEngines(): readonly string[];
}

/** What `activate()` of Context Pipeline returns. */
export interface ContextPipelineApi {
  readonly v1: ContextPipelineApiV1;
}
