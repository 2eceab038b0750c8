import * as v from 'valibot';
import { PressureSchema } from './pressure';
import { parseWith, type Parsed } from './validate';

/** The Context Budget panel's protocol: the webview posts `ready`, `restore` and `unpin`; the host posts snapshots. */

// ---------- webview → host ----------

/** Ids of compactions, messages and blocks: word characters, dots, colons and dashes. */
const Id = (what: string) =>
  v.pipe(v.string(), v.minLength(1), v.maxLength(200), v.regex(/^[\w.:-]+$/, `Invalid ${what} id`));

/** A server's or a tool's own name (shown, never interpreted): bounded printable text. */
const ServerName = v.pipe(v.string(), v.minLength(1), v.maxLength(200), v.regex(/^[^\u0000-\u001f]+$/, 'Invalid name'));

const ToHostSchema = v.variant('type', [
  v.strictObject({ type: v.literal('ready') }),
  v.strictObject({ type: v.literal('restore'), id: Id('compaction') }),
  /** Unpin a whole message (`kind: 'message'`, a message id) or one pinned block (a block id). */
  v.strictObject({ type: v.literal('unpin'), kind: v.picklist(['message', 'block']), id: Id('message or block') }),
  /** An MCP server for this session: turn it on or off, start a failed one afresh, or ask its approval again. */
  v.strictObject({
    type: v.literal('mcpServer'),
    action: v.picklist(['enable', 'disable', 'retry', 'approve']),
    server: ServerName,
  }),
  /** One MCP tool (the server's own name) on or off for this session. */
  v.strictObject({ type: v.literal('mcpTool'), server: ServerName, tool: ServerName, enabled: v.boolean() }),
]);

/** A validated message from the budget webview. */
export type BudgetToHost = v.InferOutput<typeof ToHostSchema>;

/** Validates a message from the budget webview. */
export function parseBudgetToHost(input: unknown): Parsed<BudgetToHost> {
  return parseWith(ToHostSchema, input);
}

// ---------- host → webview ----------

const N = v.number();
const Category = v.strictObject({ id: v.string(), label: v.string(), tokens: N });
const LedgerRow = v.strictObject({
  position: N,
  role: v.string(),
  kind: v.string(),
  source: v.string(),
  tokens: N,
  breakpoint: v.boolean(),
  /** The breakpoint's lifetime and why it was chosen (core/cache/ttlChoice.ts), and why it is here (cacheAnchors.ts). */
  breakpointTtl: v.optional(
    v.strictObject({ value: v.picklist(['5m', '1h']), reason: v.string(), where: v.optional(v.string()) }),
  ),
  preview: v.string(),
  blockId: v.optional(v.string()),
  /** The workspace file the block came from (project instructions). */ origin: v.optional(v.string()),
  /** What normalize did to this block before sending. */ repair: v.optional(v.string()),
});
const DiffRow = v.strictObject({ key: v.string(), label: v.string(), before: N, after: N });
const RequestRow = v.strictObject({
  index: N,
  promptTokens: N,
  input: N,
  cacheRead: N,
  cacheWrite: N,
  output: N,
  estimated: N,
  /** Null when the model's price is unknown (shown as "—"). */
  costUsd: v.nullable(N),
  /** A compaction ran before this request. */
  compactedBefore: v.boolean(),
  /** Cut off before its answer ended (Stop, a dropped connection): billed for its prompt and the output that arrived (estimated). */
  cut: v.optional(v.literal(true)),
  /** The exact prompt size `count_tokens` gave for this request (first request per model), when it answered. */
  counted: v.optional(N),
  /** Why the prompt cache missed on this request (the API's diagnosis or our attribution). */
  cacheMiss: v.optional(
    v.strictObject({
      cause: v.picklist([
        'ttl_expired',
        'model_changed',
        'tools_changed',
        'system_changed',
        'params_changed',
        'message_edited',
        'below_minimum',
        'unknown',
      ]),
      missedTokens: N,
      source: v.picklist(['api', 'ledger']),
      detail: v.string(),
    }),
  ),
  /** Input tokens the API's context editing cleared from this request (its `applied_edits`). */
  serverCleared: v.optional(N),
  /** Tool results the API's `clear_tool_uses` cleared from this request. */
  serverClearedToolUses: v.optional(N),
  /** Tokens of the API's server-compaction iterations in this request (input + output). */
  serverCompactionTokens: v.optional(N),
});
/** A subagent that ended: its requests are billed to the session (shown as the Subagents row). */
const SubagentRow = v.strictObject({
  /** The parent's turn it ran in. */
  turn: N,
  description: v.string(),
  model: v.string(),
  state: v.picklist(['done', 'failed', 'stopped']),
  requests: N,
  rounds: N,
  toolCalls: N,
  /** Summed over its requests: input + cache reads + cache writes. */
  promptTokens: N,
  cacheRead: N,
  cacheWrite: N,
  output: N,
  /** Null when a request's price was unknown. */
  costUsd: v.nullable(N),
});
/** A pinned region: a whole message, or one pinned block (e.g. a selection) of a message. */
const PinnedRow = v.strictObject({
  kind: v.picklist(['message', 'block']),
  id: v.string(),
  role: v.picklist(['user', 'assistant']),
  turn: N,
  /** `file:lines` of a pinned selection, the block type of another block, empty for a message. */
  label: v.string(),
  preview: v.string(),
  tokens: N,
});
const CompactionRow = v.strictObject({
  id: v.string(),
  at: N,
  trigger: v.string(),
  layer: v.string(),
  tokensBefore: N,
  tokensAfter: N,
  /** What its summariser spent; null when the model's price is unknown. */
  costUsd: v.nullable(N),
  lost: N,
  /** The identifiers the retention check found missing from the summary (at most 10). */ lostIds: v.array(v.string()),
  active: v.boolean(),
});

const SnapshotSchema = v.strictObject({
  type: v.literal('snapshot'),
  session: v.string(),
  model: v.string(),
  contextWindow: N,
  /** Where the window came from: the user's setting, the Models API, the maintained table, or assumed (unknown model). */
  windowSource: v.optional(v.picklist(['setting', 'models-api', 'table', 'assumed'])),
  /** The context engine of the last request (or the one chosen, before any), and why the layered one served it instead. */
  engine: v.optional(
    v.strictObject({
      id: v.string(),
      name: v.string(),
      fallback: v.optional(v.string()),
      /** The engine keeps each request within its budget: the pipeline's own compaction is off. */
      ownsCompaction: v.optional(v.literal(true)),
    }),
  ),
  outputReserve: N,
  softThreshold: N,
  hardThreshold: N,
  /** The pressure of the next request (`nextEstimate`) on the window: level, effective window, thresholds in tokens. */
  pressure: PressureSchema,
  /** The next request (the current conversation), calibrated, by category. */
  categories: v.array(Category),
  nextTotal: N,
  /** The estimator's (anchored) estimate of the next request. */
  nextEstimate: N,
  /**
   * What `nextEstimate` is anchored on (absent: not anchored, a calibrated count): the last
   * reported usage, or an exact `count_tokens` figure; `tokens` is that figure.
   */
  nextAnchor: v.optional(v.strictObject({ source: v.picklist(['usage', 'count_tokens']), tokens: N })),
  calibration: N,
  tokenizer: v.string(),
  last: v.optional(v.strictObject({ estimated: N, reported: N })),
  requests: v.array(RequestRow),
  /** The session's subagents that ended, oldest first (the newest 200). */
  subagents: v.array(SubagentRow),
  /** What the compaction summariser spent over the whole session (every compaction, restored or not); null: a price unknown. */
  summariesCostUsd: v.nullable(N),
  /**
   * What writing the handoff note that started this session cost (absent: it was not handed
   * off to, or that cost nothing; null: the summariser's price is unknown).
   */
  handoffCostUsd: v.optional(v.nullable(N)),
  ledger: v.array(LedgerRow),
  /** What normalize repaired in the last request before sending it: one line, and each repair. */
  repairs: v.optional(v.strictObject({ summary: v.string(), details: v.array(v.string()) })),
  diff: v.optional(v.strictObject({ added: v.array(DiffRow), removed: v.array(DiffRow), changed: v.array(DiffRow) })),
  compactions: v.array(CompactionRow),
  /** What is pinned in the conversation (never compacted), in conversation order. */
  pinned: v.array(PinnedRow),
  forecast: v.strictObject({ growthPerTurn: N, turns: v.optional(N), past: v.boolean(), limit: N }),
  /** Where and why the next compaction happens (the compactor's plan for the next request). */
  nextCompaction: v.optional(
    v.strictObject({
      action: v.picklist(['none', 'mask', 'summarise']),
      reason: v.string(),
      /** Prompt tokens at which it happens (now, when the action is not `none`). */
      atTokens: N,
      expectedAfter: N,
      /** The first turn of the protected tail (kept verbatim). */
      keepsFromTurn: v.optional(N),
      /** Tokens of the protected tail as the conversation stands. */
      keptTokens: N,
      /** The tail's budget: the newest tokens a compaction keeps (`keepRecentTokens`, as capped). */
      keepBudget: N,
      /** Whether the whole conversation is inside the tail today (nothing could be compacted). */
      keepsAll: v.boolean(),
      paybackRequests: v.optional(N),
      /** Turns of the recent growth until `atTokens` (action `none`; absent: no growth to go by). */
      turns: v.optional(N),
    }),
  ),
  busy: v.boolean(),
});

/**
 * The Tools card: the definitions the next request carries, by server and by tool (deferred
 * ones are found by tool search and cost nothing until then), and each MCP server's state.
 */
const ToolsSchema = v.strictObject({
  type: v.literal('tools'),
  /** Tokens of the tool definitions the next request sends (calibrated). */
  tokens: N,
  /** Tokens they would take if every tool were loaded. */
  eagerTokens: N,
  /** How deferred tools are found: the API's tool search, the client's find_tools, or nothing is deferred. */
  search: v.picklist(['server', 'client', 'none']),
  /** Built-ins (server '') first, then each server's tools. */
  groups: v.array(
    v.strictObject({
      server: v.string(),
      tokens: N,
      eagerTokens: N,
      /** Each tool with its whole description (an MCP server's is untrusted text: shown, never followed). */
      tools: v.array(v.strictObject({ name: v.string(), tokens: N, deferred: v.boolean(), description: v.string() })),
    }),
  ),
  servers: v.array(
    v.strictObject({
      name: v.string(),
      /** Where it is configured, in words. */
      source: v.string(),
      transport: v.string(),
      state: v.picklist(['disabled', 'awaiting-approval', 'starting', 'ready', 'failed', 'stopped']),
      message: v.optional(v.string()),
      stderrTail: v.optional(v.string()),
      toolCount: N,
      /** Its tool list changed; the new one applies at the next turn. */
      stale: v.boolean(),
      notices: v.array(v.string()),
      disabledTools: v.array(v.string()),
      /** The server's own tool names (for the on/off switches). */
      tools: v.array(v.string()),
    }),
  ),
  /** A configuration change waits for the next turn (the tool list, and so the cache, changes then). */
  changePending: v.boolean(),
  /**
   * With `changePending`: what the changed tool list costs the next request — the prompt after
   * the tools written to the cache again (its tokens, and their price; null when unknown).
   */
  cacheRewrite: v.optional(v.strictObject({ tokens: N, usd: v.nullable(N) })),
});

const ToWebviewSchema = v.variant('type', [
  SnapshotSchema,
  ToolsSchema,
  v.strictObject({ type: v.literal('empty'), reason: v.string() }),
  v.strictObject({ type: v.literal('notice'), level: v.picklist(['info', 'warning']), text: v.string() }),
]);

/** A validated message from the host to the budget webview. */
export type BudgetToWebview = v.InferOutput<typeof ToWebviewSchema>;
/** Everything the panel shows at one moment. */
export type BudgetSnapshot = Extract<BudgetToWebview, { type: 'snapshot' }>;
/** The Tools card's content. */
export type BudgetTools = Extract<BudgetToWebview, { type: 'tools' }>;
/** One pinned region of a snapshot. */
export type BudgetPinnedRow = BudgetSnapshot['pinned'][number];

/** Validates a message from the host (the webview trusts nothing it did not check). */
export function parseBudgetToWebview(input: unknown): Parsed<BudgetToWebview> {
  return parseWith(ToWebviewSchema, input);
}
