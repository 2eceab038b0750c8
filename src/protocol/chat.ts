import * as v from 'valibot';
import { ChatItemSchema } from './chatItems';
import { MAX_WEBVIEW_STRING, parseWith, type Parsed } from './validate';

/**
 * The chat webview's protocol: a union keyed on `type` in each direction, with a runtime
 * validator for each. The webview posts `ready` first; the host queues until then.
 */

// ---------- webview → host ----------

const Text = v.pipe(v.string(), v.maxLength(MAX_WEBVIEW_STRING, 'The message is larger than 16 MB'));

const ToHostSchema = v.variant('type', [
  v.strictObject({ type: v.literal('ready') }),
  /** Send the user's words as a new turn. */
  v.strictObject({ type: v.literal('send'), text: Text }),
  /** Stop the running turn. */
  v.strictObject({ type: v.literal('stop') }),
  /** Re-send the last request after an error. */
  v.strictObject({ type: v.literal('retry') }),
  /** Assemble (not send) the given text and show what the request would hold. */
  v.strictObject({ type: v.literal('preview'), requestId: v.pipe(v.number(), v.integer(), v.minValue(0)), text: Text }),
  /** Run one of the extension's own commands (each asks the user itself where it changes anything). */
  v.strictObject({ type: v.literal('command'), command: v.picklist(['setApiKey', 'compactNow', 'newSession', 'showBudget', 'toggleEditorContext', 'showSessions']) }),
]);

/** A message the chat webview sends to the host. */
export type ChatToHost = v.InferOutput<typeof ToHostSchema>;

/** Validates a message from the chat webview. Anything malformed is reported, never trusted. */
export function parseChatToHost(input: unknown): Parsed<ChatToHost> {
  return parseWith(ToHostSchema, input);
}

// ---------- host → webview ----------

const StatusSchema = v.strictObject({
  type: v.literal('status'),
  version: v.string(),
  model: v.string(),
  contextWindow: v.number(),
  outputReserve: v.number(),
  apiKey: v.picklist(['secret-storage', 'environment', 'missing']),
  /** Where requests go when not the Anthropic API (a proxy or the scripted test server). */
  baseUrl: v.optional(v.string()),
  busy: v.boolean(),
  sessionTitle: v.string(),
  /** Prompt tokens of the last request (reported) or the current estimate. */
  promptTokens: v.number(),
  costUsd: v.number(),
  /** Settings problems a person should read (e.g. a tiny window); empty when fine. */
  warnings: v.array(v.string()),
});

const LedgerRowSchema = v.strictObject({
  position: v.number(),
  role: v.picklist(['tools', 'system', 'user', 'assistant']),
  kind: v.string(),
  source: v.string(),
  tokens: v.number(),
  preview: v.string(),
  breakpoint: v.boolean(),
});

const PreviewResultSchema = v.variant('ok', [
  v.strictObject({
    type: v.literal('previewResult'),
    requestId: v.number(),
    ok: v.literal(true),
    estimatedTokens: v.number(),
    contextWindow: v.number(),
    rows: v.array(LedgerRowSchema),
    breakpoints: v.array(v.strictObject({ label: v.string(), prefixTokens: v.number(), hitProbability: v.number(), reason: v.string() })),
    spilledTo: v.optional(v.string()),
    notes: v.array(v.string()),
  }),
  v.strictObject({ type: v.literal('previewResult'), requestId: v.number(), ok: v.literal(false), error: v.string() }),
]);

const ToWebviewSchema = v.variant('type', [
  StatusSchema,
  PreviewResultSchema,
  /** The whole transcript (on ready, resume, new session). */
  v.strictObject({ type: v.literal('transcript'), items: v.array(ChatItemSchema) }),
  /** Add an item, or replace the item with the same id. */
  v.strictObject({ type: v.literal('upsert'), item: ChatItemSchema }),
  /** Streamed text appended to an assistant item. */
  v.strictObject({ type: v.literal('delta'), id: v.string(), text: v.string() }),
  /** A retry is scheduled: show a countdown (cleared by `waitMs: 0`). */
  v.strictObject({ type: v.literal('retrying'), waitMs: v.number(), attempt: v.number(), reason: v.string() }),
]);

/** A message the host sends to the chat webview. */
export type ChatToWebview = v.InferOutput<typeof ToWebviewSchema>;
/** One row of the request ledger shown in the preview. */
export type LedgerRow = v.InferOutput<typeof LedgerRowSchema>;

/** Validates a message from the host (the webview checks too: defence in depth). */
export function parseChatToWebview(input: unknown): Parsed<ChatToWebview> {
  return parseWith(ToWebviewSchema, input);
}
