/**
 * The core data model: blocks with metadata, messages with stable ids, and the
 * conversation state every pipeline step reads. Plain data, no classes, no I/O.
 *
 * Blocks are treated as immutable values: a step that changes a block makes a new one.
 * The one exception is `meta.tokenCount`, a memo the token counter fills once per block
 * (see tokens/blockTokens.ts) — an unchanged block is therefore never counted twice.
 */

/** Trust tier: 0 = system/developer, 1 = the user, 2 = the model, 3 = external (tools, files, hooks). */
export type Tier = 0 | 1 | 2 | 3;

/** Where a block came from. Drives the tag it is wrapped in and how compaction treats it. */
export type BlockSource =
  | 'system'
  | 'user'
  | 'assistant'
  | 'tool'
  | 'reminder'
  | 'ide_selection'
  | 'ide_opened_file'
  /** A workspace file the user attached with `@` in the composer (its content, once). */
  | 'attached_file'
  | 'hook'
  | 'compactor'
  /** A project instruction file (AGENTS.md, CLAUDE.md …), in the system prompt. */
  | 'instructions'
  /** The workspace facts block (folders, platform, date, git), in the system prompt. */
  | 'workspace';

/**
 * What a tool does, as the pipeline sees it: snip and masking find stale reads by it,
 * re-attach and the file index find the files touched, risk flags and the ledger group by it.
 * `plan` changes only the session's plan (update_plan). `delegate` hands work to a subagent
 * (task). `external` is anything else (an MCP tool, unless the pipeline can tell better).
 */
export type ToolEffect = 'read' | 'list' | 'search' | 'edit' | 'run' | 'recall' | 'plan' | 'delegate' | 'external';

/** Metadata carried by every block. */
export interface BlockMeta {
  /** Stable id, unique within a session. Never a timestamp. */
  readonly id: string;
  readonly tier: Tier;
  readonly source: BlockSource;
  /** Milliseconds since the epoch, from the injected Clock. */
  readonly createdAt: number;
  /**
   * Where the block's content was read from, when it came from a workspace file: the
   * workspace-relative path (folder-name prefixed in a multi-root workspace) of a project
   * instruction file. Shown in the ledger.
   */
  readonly origin?: string;
  /** For tool_use and tool_result: the id of the tool call this block belongs to. */
  readonly toolUseId?: string;
  /**
   * For a tool_use: what the called tool does, from its definition when the call was made
   * (toolDefinition.ts). Absent for a tool the pipeline did not define (a replayed transcript's,
   * or a call saved before this field existed): such calls are classified by name.
   */
  readonly effect?: ToolEffect;
  /**
   * For a block rendered from an injection (editor context, reminder, hook): what it was built
   * from, so readers (the chat's chips, the pinned regions) never parse it back from the prose.
   * Absent on blocks saved by versions before it existed.
   */
  readonly injection?: InjectionRef;
  /** Raw tokenizer count of this block, memoised by the token counter. Absent until counted. */
  tokenCount?: number;
  /** Pinned blocks are never compacted. */
  readonly pinned: boolean;
  /** Whether compaction may replace this block. Summaries and the user's words are not. */
  readonly compactable: boolean;
}

/** The structured data of an injected block (see `BlockMeta.injection`). */
export interface InjectionRef {
  readonly kind: Injection['kind'];
  /** The tag the text is wrapped in. */
  readonly tag: string;
  /** The file of an opened-file, selection or attached-file injection (as queued, before any escaping). */
  readonly path?: string;
  /** A selection's lines, 1-based, inclusive. */
  readonly startLine?: number;
  readonly endLine?: number;
  /** Where the injected content (a selection's code, a reminder's text) begins in the block's text. */
  readonly contentStart?: number;
}

/** Text content (user words, assistant prose, tagged injections). */
export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
  readonly meta: BlockMeta;
}

/** A tool call made by the assistant. */
export interface ToolUseBlock {
  readonly type: 'tool_use';
  /** The API's tool call id (toolu_…). */
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  readonly meta: BlockMeta;
}

/** Supported image media types (as the Messages API accepts them). */
export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/** A base64 image, as sent to the API. */
export interface ImageBlock {
  readonly type: 'image';
  readonly mediaType: ImageMediaType;
  /** Base64 data without the data: prefix. */
  readonly data: string;
  readonly meta: BlockMeta;
}

/** Content allowed inside a tool result. */
export type ToolResultContent =
  | string
  | ReadonlyArray<
      | { readonly type: 'text'; readonly text: string }
      | { readonly type: 'image'; readonly mediaType: ImageMediaType; readonly data: string }
    >;

/** The answer to a tool_use, in the next user message. */
export interface ToolResultBlock {
  readonly type: 'tool_result';
  readonly toolUseId: string;
  readonly content: ToolResultContent;
  readonly isError?: boolean;
  readonly meta: BlockMeta;
}

/**
 * Extended thinking from the assistant. Only signed thinking can be sent back to the API.
 * A `redacted_thinking` block of the API is a ThinkingBlock with `redactedData` (its opaque,
 * encrypted `data`, sent back verbatim), an empty `thinking` and no signature.
 */
export interface ThinkingBlock {
  readonly type: 'thinking';
  readonly thinking: string;
  readonly signature?: string;
  /** Set on a redacted thinking block: the API's `data`, to be passed back unchanged. */
  readonly redactedData?: string;
  /**
   * A digest of the prefix the block was produced after (system, tools, earlier messages and
   * blocks), for models that refuse thinking whose prefix changed (`thinkingBinding.ts`).
   */
  readonly prefixDigest?: string;
  readonly meta: BlockMeta;
}

/** A compaction summary standing in for a range of turns. Never compactable. */
export interface SummaryBlock {
  readonly type: 'summary';
  readonly text: string;
  readonly compactionId: string;
  /** Inclusive turn range this summary replaces. */
  readonly turnRange: readonly [number, number];
  /**
   * Set when the API made this summary: the block is sent back as the API's `compaction` block,
   * with `text` as its content and these fields verbatim (see serverContext.ts). Such a summary
   * sits first in an assistant message: an answer's (`compact_20260112`), or the first message
   * of the conversation (`onDemand`: compaction on demand, serverSummary.ts).
   */
  readonly server?: ServerSummaryFields;
  readonly meta: BlockMeta;
}

/**
 * The fields of the API's `compaction` block (SDK `BetaCompactionBlock`) a server summary sends
 * back verbatim: `encrypted_content`, the `signature` over the summary and the `tool_changes`
 * of the compacted range; `onDemand` marks a block returned by a compaction request (it needs
 * the `compact-2026-09-04` beta and must stay the conversation's first block).
 */
export interface ServerSummaryFields {
  readonly encryptedContent?: string | null;
  readonly signature?: string | null;
  readonly toolChanges?: readonly Readonly<Record<string, unknown>>[] | null;
  readonly onDemand?: true;
}

/**
 * A block of one of the API's server tools (run by the API, not by us), kept as the API sent
 * it: the call (`server_tool_use`, SDK `ServerToolUseBlock`) or its result (`tool_search_tool_result`,
 * `web_search_tool_result`…, SDK `ToolSearchToolResultBlock` etc.), both in the assistant message.
 *
 * One block type holding the raw JSON rather than one typed block per server tool: the API
 * wants these blocks back verbatim (its result types are many and grow with each server tool),
 * and the pipeline only needs the pairing id, the tool's name and, for tool search, the query
 * and the tools found — read from `raw` by `serverTools.ts`. Every exhaustive switch then has
 * one case to handle, and a server tool the pipeline does not know still round-trips.
 */
export interface ServerToolBlock {
  readonly type: 'server_tool';
  /** The API's block as JSON (`type`, and `id`/`name`/`input` or `tool_use_id`/`content`), without `cache_control`. */
  readonly raw: ServerToolRaw;
  /** `meta.toolUseId` is the call's id (srvtoolu_…): `raw.id` of the call, `raw.tool_use_id` of its result. */
  readonly meta: BlockMeta;
}

/** The JSON of a server tool block, as the API sent it. */
export interface ServerToolRaw {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** Any block of a message. */
export type Block =
  TextBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | ImageBlock | SummaryBlock | ServerToolBlock;

/** Role of a message, as in the Messages API. */
export type Role = 'user' | 'assistant';

/** One message of the conversation. */
export interface Message {
  /** Stable id, unique within a session. */
  readonly id: string;
  readonly role: Role;
  readonly blocks: readonly Block[];
  /** Turn number: one turn starts with a user message that carries the user's words. */
  readonly turn: number;
}

/** A tool the model may call (JSON schema input). */
export interface ToolSchema {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: { readonly type: 'object'; readonly [key: string]: unknown };
  /**
   * What the tool does for the pipeline (toolDefinition.ts), from its definition; absent on
   * tools the pipeline does not define (a replayed transcript's), which are classified by name.
   */
  readonly effect?: ToolEffect;
  /** The MCP server the tool comes from (for the budget by server); absent for built-ins. */
  readonly server?: string;
  /**
   * Sent with `defer_loading: true`: the model finds it through the API's tool search and only
   * then sees its definition. Set by the pipeline's tool-loading plan, never by a tool itself.
   */
  readonly deferLoading?: boolean;
}

/** Context waiting to be injected into the next user message, wrapped in its tag. */
export type Injection =
  | { readonly kind: 'ide_opened_file'; readonly path: string }
  | {
      /** A workspace file the user mentioned with `@`: its whole text, read when it was attached. */
      readonly kind: 'attached_file';
      /** Workspace-relative, `/`-separated (folder-name prefixed in a multi-root workspace). */
      readonly path: string;
      readonly text: string;
    }
  | {
      readonly kind: 'ide_selection';
      readonly path: string;
      /** 1-based, inclusive. */
      readonly startLine: number;
      readonly endLine: number;
      readonly text: string;
      /** Characters cut from the selection before it was queued, if any. */
      readonly truncatedChars?: number;
      /** Pinned by the user (Pin Selection): its block is never compacted. */
      readonly pinned?: boolean;
    }
  | {
      readonly kind: 'system_reminder';
      readonly text: string;
      /** The workspace file the reminder carries (nested project instructions), recorded on its block. */
      readonly origin?: string;
      /**
       * The pipeline built `text` with its untrusted parts already neutralised and wraps them
       * in tags of its own on purpose (nested instructions: the file in `<project_instructions>`),
       * so it is rendered as is instead of being neutralised again (which escaped that wrapper).
       */
      readonly prebuilt?: true;
    }
  | {
      readonly kind: 'hook';
      /** Tag name, e.g. `user-prompt-submit-hook`. Lowercase letters, digits, `-` and `_`. */
      readonly tag: string;
      readonly text: string;
    };

/** Prompt-cache lifetime of one breakpoint. */
export type CacheTtl = '5m' | '1h';

/**
 * The lifetime setting of the breakpoints the pipeline places: `auto` chooses per breakpoint
 * by the gap it must bridge (core/cache/ttlChoice.ts), else one lifetime for all.
 */
export type CacheLifetime = 'auto' | CacheTtl;

/** Settings that shape the pipeline. Built by the host from the user's settings. */
export interface PipelineConfig {
  readonly model: string;
  /** Extended thinking (`contextPipeline.thinking`); absent: off. See `thinking.ts`. */
  readonly thinking?: 'off' | 'low' | 'medium' | 'high';
  readonly summarizerModel: string;
  /**
   * Who writes summaries (`contextPipeline.summarizer`): `auto` picks by expected cost, `main`
   * the main model from its prompt cache, `small` always `summarizerModel`, `server` the API
   * (compaction on demand) wherever it can. Absent: `auto`.
   */
  readonly summarizer?: 'auto' | 'main' | 'small' | 'server';
  /** Total context window in tokens. */
  readonly contextWindow: number;
  /** Tokens reserved for the answer (the request's max_tokens). */
  readonly outputReserve: number;
  /** Fractions of the effective window (window − output reserve). */
  readonly softThreshold: number;
  readonly hardThreshold: number;
  readonly keepRecentTurns: number;
  readonly keepRecentTokens: number;
  readonly cacheTtl: CacheLifetime;
  /** Smallest prefix (tokens) the model will cache. */
  readonly minCacheableTokens: number;
  /** A pasted input longer than this (characters) is spilled to a file. */
  readonly pasteThresholdChars: number;
  /** Whether the Models API says the model supports server compaction (absent: not known; the model table decides). */
  readonly serverCompaction?: boolean;
  /** Whether the Models API says the model takes a compaction request (compaction on demand; absent: the model table decides). */
  readonly onDemandCompaction?: boolean;
  /**
   * The API tool search tool a request with deferred tools (`ToolSchema.deferLoading`) carries
   * (serialize.ts); absent: regex. Set from the tool loading plan (toolLoading.ts).
   */
  readonly toolSearch?: 'regex' | 'bm25';
}

/* The plan's data (its one check and its texts are core/plan/plan.ts). */

/** Where a step stands. */
export type PlanStatus = 'pending' | 'in_progress' | 'completed';

/** One step of the plan: what to do, where it stands, and an optional short note. */
export interface PlanStep {
  readonly step: string;
  readonly status: PlanStatus;
  readonly note?: string;
}

/** The plan: its steps in order (never empty: a cleared plan is no plan). */
export interface Plan {
  readonly steps: readonly PlanStep[];
}

/** Everything the pipeline needs to build the next request. */
export interface ConversationState {
  readonly system: readonly TextBlock[];
  readonly tools: readonly ToolSchema[];
  readonly messages: readonly Message[];
  readonly pending: readonly Injection[];
  readonly config: PipelineConfig;
  /**
   * The agent's plan (update_plan; core/plan/plan.ts): session state, never sent as such — the
   * model reads it in its own calls, and after a compaction in the survive reminder.
   */
  readonly plan?: Plan;
}
