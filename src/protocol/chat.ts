import * as v from 'valibot';
import { MAX_WEBVIEW_STRING, parseWith, type Parsed } from './validate';

/**
 * The chat webview's protocol: a union keyed on `type` in each direction, with a runtime
 * validator for each. The webview posts `ready` first; the host queues until then.
 */

// ---------- webview → host ----------

const ReadySchema = v.strictObject({ type: v.literal('ready') });

/** Ask the host to assemble (not send) the given text and show what the request would hold. */
const PreviewSchema = v.strictObject({
  type: v.literal('preview'),
  requestId: v.pipe(v.number(), v.integer(), v.minValue(0)),
  text: v.pipe(v.string(), v.maxLength(MAX_WEBVIEW_STRING, 'The message is larger than 16 MB')),
});

/** Run one of the extension's own commands (each asks the user itself where it changes anything). */
const CommandSchema = v.strictObject({
  type: v.literal('command'),
  command: v.picklist(['setApiKey', 'compactNow', 'newSession', 'showBudget', 'toggleEditorContext']),
});

const ToHostSchema = v.variant('type', [ReadySchema, PreviewSchema, CommandSchema]);

/** A message the chat webview sends to the host. */
export type ChatToHost = v.InferOutput<typeof ToHostSchema>;

/** Validates a message from the chat webview. Anything malformed is reported, never trusted. */
export function parseChatToHost(input: unknown): Parsed<ChatToHost> {
  return parseWith(ToHostSchema, input);
}

// ---------- host → webview ----------

const ApiKeyStatusSchema = v.picklist(['secret-storage', 'environment', 'missing']);

const StatusSchema = v.strictObject({
  type: v.literal('status'),
  version: v.string(),
  model: v.string(),
  contextWindow: v.number(),
  outputReserve: v.number(),
  apiKey: ApiKeyStatusSchema,
  /** Settings problems a person should read (e.g. a tiny window); empty when fine. */
  warnings: v.array(v.string()),
  /** What this version cannot do yet, said plainly. */
  notReady: v.array(v.string()),
});

const LedgerRowSchema = v.strictObject({
  position: v.number(),
  role: v.picklist(['system', 'tools', 'user', 'assistant']),
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

const ToWebviewSchema = v.variant('type', [StatusSchema, PreviewResultSchema]);

/** A message the host sends to the chat webview. */
export type ChatToWebview = v.InferOutput<typeof ToWebviewSchema>;
/** One row of the request ledger shown in the preview. */
export type LedgerRow = v.InferOutput<typeof LedgerRowSchema>;

/** Validates a message from the host (the webview checks too: defence in depth). */
export function parseChatToWebview(input: unknown): Parsed<ChatToWebview> {
  return parseWith(ToWebviewSchema, input);
}
