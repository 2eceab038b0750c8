import * as v from 'valibot';
import { ChatItemSchema } from './chatItems';
import { IMAGE_MEDIA_TYPES } from './imageTokens';
import { PressureSchema } from './pressure';
import { isBase64Text, MAX_LINK_HREF, MAX_WEBVIEW_STRING, parseWith, type Parsed } from './validate';
import { MAX_MENTION_RESULTS, MentionPath, MentionQueryText, MentionRequestId } from './mentions';
import { ClearPlanSchema, PlanSchema } from './plan';

/**
 * The chat webview's protocol: a union keyed on `type` in each direction, with a runtime
 * validator for each. The webview posts `ready` first; the host queues until then.
 */

// ---------- webview → host ----------

const Text = v.pipe(
  v.string(),
  v.maxLength(
    MAX_WEBVIEW_STRING,
    `The message is longer than ${MAX_WEBVIEW_STRING.toLocaleString('en-US')} characters (UTF-16 units)`,
  ),
);
/** The longest argument a slash command takes (`/compact` instructions). */
export const MAX_SLASH_ARG = 4000;

export { MAX_LINK_HREF } from './validate';
export { isMentionPath, MAX_MENTION_QUERY, MAX_MENTION_RESULTS } from './mentions';

/**
 * Whether a link from rendered model output may be opened by the host: an absolute
 * `http:`/`https:` URL (no credentials), or a workspace-relative path (no scheme, not
 * absolute, no `..` segment, no control characters) with an optional `#L12` line anchor.
 * Anything else (`javascript:`, `file:`, `command:`, `vscode:`, `data:`, `//host` …) is refused.
 */
export function isAllowedLinkHref(href: string): boolean {
  if (href.length === 0 || href.length > MAX_LINK_HREF) return false;

  if (/[\u0000-\u001f\u007f\\]/.test(href)) return false;
  if (/^https?:/i.test(href)) {
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      return false;
    }
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.hostname.length > 0 &&
      url.username === '' &&
      url.password === ''
    );
  }
  return parseWorkspaceLink(href) !== undefined;
}

/**
 * Splits a workspace-relative link into its path segments and an optional 1-based line
 * (`src/a.ts#L12`); undefined when it is not a safe relative path.
 */
export function parseWorkspaceLink(href: string): { segments: string[]; line?: number } | undefined {
  if (href.length === 0 || href.length > MAX_LINK_HREF) return undefined;

  if (/[\u0000-\u001f\u007f\\?]/.test(href)) return undefined;
  const m = /^([^#]*)(?:#L(\d{1,7}))?$/.exec(href);
  if (!m) return undefined;
  let path = m[1] ?? '';
  try {
    path = decodeURIComponent(path);
  } catch {
    return undefined;
  }

  if (/[\u0000-\u001f\u007f\\]/.test(path)) return undefined;
  if (path.startsWith('./')) path = path.slice(2);
  if (path === '' || path.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(path)) return undefined;
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0 || segments.some((s) => s === '..')) return undefined;
  const line = m[2] !== undefined ? Number(m[2]) : undefined;
  return line !== undefined && line > 0 ? { segments, line } : { segments };
}

const LinkHref = v.pipe(
  v.string(),
  v.maxLength(MAX_LINK_HREF, `The link is longer than ${MAX_LINK_HREF} characters`),
  v.check(isAllowedLinkHref, 'Only http(s) URLs and workspace-relative paths may be opened'),
);

export { IMAGE_MEDIA_TYPES };

/**
 * The most base64 characters one image may have: the API refuses more ("image exceeds 5 MB
 * maximum", https://platform.claude.com/docs/en/build-with-claude/vision, image size limits:
 * 5 MB per image through the API).
 */
export const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;

/**
 * Images one message may carry from the composer. The API refuses a request of more than 20
 * images when one is over 2000 px a side (the vision guide); the composer scales each to at
 * most 1568 px, so this is a limit on how much one message may cost, not the API's.
 */
export const MAX_MESSAGE_IMAGES = 20;

const ImageAttachment = v.strictObject({
  mediaType: v.picklist(IMAGE_MEDIA_TYPES, 'Images may be PNG, JPEG, GIF or WebP'),
  data: v.pipe(
    v.string(),
    v.minLength(4, 'An image has no data'),
    v.maxLength(MAX_IMAGE_BASE64, 'An image is over the API limit of 5 MB (base64)'),
    v.check((s) => s.length > MAX_IMAGE_BASE64 || isBase64Text(s), 'An image is not base64 data'),
  ),
});

/** An image pasted or dropped into the composer, as base64 (no `data:` prefix). */
export type ImageAttachment = v.InferOutput<typeof ImageAttachment>;

// The count is checked before any image is: a message of a million entries is refused at once.
const Images = v.optional(
  v.pipe(
    v.array(v.unknown()),
    v.maxLength(MAX_MESSAGE_IMAGES, `A message may carry at most ${MAX_MESSAGE_IMAGES} images`),
    v.array(ImageAttachment),
  ),
);

const ApprovalId = v.pipe(v.string(), v.minLength(1), v.maxLength(200), v.regex(/^[\w.:-]+$/, 'Invalid approval id'));

/** A conversation message's id. */
const MessageId = v.pipe(v.string(), v.minLength(1), v.maxLength(200));
/** The id of a compaction or a tool call the webview asks about. */
const ItemRef = v.pipe(v.string(), v.minLength(1), v.maxLength(200), v.regex(/^[\w.:-]+$/, 'Invalid id'));

const ToHostSchema = v.variant('type', [
  v.strictObject({ type: v.literal('ready') }),
  /** Send the user's words (and the images pasted with them) as a new turn. */
  v.strictObject({ type: v.literal('send'), text: Text, images: Images }),
  /** Stop the running turn. */
  v.strictObject({ type: v.literal('stop') }),
  /** Re-send the last request after an error. */
  v.strictObject({ type: v.literal('retry') }),
  /** Retry on the last answer: its answers leave, the user's last message `messageId` is answered again. */
  v.strictObject({ type: v.literal('retryLast'), messageId: MessageId }),
  /** Edit-and-resend: `text` (and images) replace the user's last message `messageId` and all after it. */
  v.strictObject({ type: v.literal('editLast'), messageId: MessageId, text: Text, images: Images }),
  /** Rewind to here, on one of the user's messages: the host asks what to rewind (conversation, files, both). */
  v.strictObject({ type: v.literal('rewindTo'), messageId: MessageId }),
  /** Assemble (not send) the given text and show what the request would hold. */
  v.strictObject({
    type: v.literal('preview'),
    requestId: v.pipe(v.number(), v.integer(), v.minValue(0)),
    text: Text,
    images: Images,
  }),
  /**
   * Run one of the extension's own commands. None changes a setting: each opens a view or a
   * prompt (Set API Key, Compact Now and Choose Model ask first), or starts a new session (the
   * current one stays in Sessions…; `handoff` starts it from a handoff note and runs its first
   * turn, its tools asking as any turn's). `openBaseUrlSetting` opens the Settings editor at
   * `contextPipeline.baseUrl` (the first-run card's offline path); the user edits it.
   */
  v.strictObject({
    type: v.literal('command'),
    command: v.picklist([
      'setApiKey',
      'openBaseUrlSetting',
      'compactNow',
      'newSession',
      'showBudget',
      'showSessions',
      'showCompactions',
      'chooseModel',
      'handoff',
    ]),
  }),
  /** Pin (never compact) or unpin a whole message. */
  v.strictObject({ type: v.literal('pin'), messageId: v.pipe(v.string(), v.maxLength(200)), pinned: v.boolean() }),
  /** A slash command typed in the chat: `/compact [instructions]`, `/new`, `/pin`, `/handoff [words]`. */
  v.strictObject({
    type: v.literal('slash'),
    name: v.picklist(['compact', 'new', 'pin', 'handoff']),
    arg: v.pipe(
      v.string(),
      v.maxLength(
        MAX_SLASH_ARG,
        `Slash command arguments are limited to ${MAX_SLASH_ARG.toLocaleString('en-US')} characters`,
      ),
    ),
  }),
  /** Open a link from a rendered answer: http(s) in the browser, a relative path as a workspace file. */
  v.strictObject({ type: v.literal('openLink'), href: LinkHref }),
  /** The user's answer to a pending approval card (ignored unless that approval is still pending). */
  v.strictObject({
    type: v.literal('approval'),
    id: ApprovalId,
    approved: v.boolean(),
    reason: v.optional(v.pipe(v.string(), v.maxLength(2000, 'A reason is limited to 2 000 characters'))),
    /** With an approval of an MCP tool's call: always allow this tool, or every tool of its server. */
    remember: v.optional(v.picklist(['tool', 'server'])),
  }),
  /** Show a pending edit's diff in VS Code's diff editor again. */
  v.strictObject({ type: v.literal('openDiff'), id: ApprovalId }),
  /** Leave an editor-context block out of the next message (`key` from a `pendingContext` chip). */
  v.strictObject({ type: v.literal('dismissContext'), key: v.pipe(v.string(), v.maxLength(400)) }),
  /** The user opened a compacted group: send its items (`compactedItems`). */
  v.strictObject({ type: v.literal('openCompacted'), compactionId: ItemRef }),
  /** The user asked for a cleared tool result's original (`clearedResult`), by its call's id. */
  v.strictObject({ type: v.literal('openClearedResult'), toolUseId: ItemRef }),
  /** Open a subagent's transcript (its child session, by id) from its task card. */
  v.strictObject({ type: v.literal('openSubagent'), sessionId: ItemRef }),
  /** Switch to another session (the one a handoff continued, from its card). */
  v.strictObject({ type: v.literal('openSession'), sessionId: ItemRef }),
  /** Put text on the clipboard (when the webview's own clipboard access failed). */
  v.strictObject({ type: v.literal('copy'), text: Text }),
  /** List the workspace files matching what follows an `@` in the composer (answered by `mentionResults`). */
  v.strictObject({ type: v.literal('mentionQuery'), requestId: MentionRequestId, query: MentionQueryText }),
  /**
   * Attach a workspace file chosen from `mentionResults` to the next message: a
   * workspace-relative path, which the host checks again (offered, inside the workspace, text)
   * before reading it.
   */
  v.strictObject({ type: v.literal('attachFile'), path: MentionPath }),
  /** The user cleared the plan's checklist (src/protocol/plan.ts). */
  ClearPlanSchema,
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
  /** Compaction thresholds, as fractions of the effective window (window − output reserve). */
  softThreshold: v.number(),
  hardThreshold: v.number(),
  /** Whether the soft threshold compacts on its own ('off' leaves it to Compact Now). */
  autoCompact: v.boolean(),
  apiKey: v.picklist(['secret-storage', 'environment', 'missing']),
  /** Where requests go when not the Anthropic API (a proxy or the scripted test server). */
  baseUrl: v.optional(v.string()),
  /**
   * Present whenever requests go anywhere but https://api.anthropic.com: the class of the
   * base URL (decided by the host by parsing it) and the sentence the header shows, always.
   */
  endpoint: v.optional(v.strictObject({ kind: v.picklist(['local', 'remote', 'invalid']), notice: v.string() })),
  busy: v.boolean(),
  sessionTitle: v.string(),
  /** Prompt tokens of the last request (reported) or the current estimate. */
  promptTokens: v.number(),
  /** `promptTokens` is an estimate (no usage reported in this session yet). */
  promptEstimated: v.optional(v.boolean()),
  /**
   * The pressure of `promptTokens` on the window (level, effective window, thresholds in
   * tokens), computed by the host; absent when the settings are invalid (no thresholds to show).
   */
  pressure: v.optional(PressureSchema),
  /** Null when a request's model has no known price (shown as "—"). */
  costUsd: v.nullable(v.number()),
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
  /** The breakpoint's lifetime (core/cache/ttlChoice.ts). */
  breakpointTtl: v.optional(v.picklist(['5m', '1h'])),
});

const PreviewResultSchema = v.variant('ok', [
  v.strictObject({
    type: v.literal('previewResult'),
    requestId: v.number(),
    ok: v.literal(true),
    estimatedTokens: v.number(),
    contextWindow: v.number(),
    /** One line first: tokens, the input's cost estimate, the prompt cache hit expected. */
    summary: v.string(),
    rows: v.array(LedgerRowSchema),
    breakpoints: v.array(
      v.strictObject({
        label: v.string(),
        prefixTokens: v.number(),
        hitProbability: v.number(),
        reason: v.string(),
        /** Its lifetime and why (core/cache/ttlChoice.ts). */
        ttl: v.picklist(['5m', '1h']),
        ttlReason: v.string(),
      }),
    ),
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
  /** Streamed thinking appended to an assistant item's (collapsed) thinking. */
  v.strictObject({ type: v.literal('thinkingDelta'), id: v.string(), text: v.string() }),
  /**
   * The editor context that will go with the next message (chips above the input), with
   * its calibrated tokens; `key` identifies a chip for `dismissContext`.
   */
  v.strictObject({
    type: v.literal('pendingContext'),
    chips: v.array(
      v.strictObject({
        key: v.string(),
        tag: v.string(),
        label: v.string(),
        tokens: v.number(),
        text: v.string(),
        pinned: v.boolean(),
        /** A file mentioned with `@` that could not be attached: why (the chip sends nothing). */
        error: v.optional(v.string()),
      }),
    ),
    /** Kinds turned off in the settings, so the user knows why nothing shows. */
    disabled: v.array(v.picklist(['ide_selection', 'ide_opened_file'])),
  }),
  /**
   * The last message did not go (refused before it entered the conversation: invalid settings,
   * no session, stopped while it was prepared, a turn still running, a failure before it was
   * saved): the composer takes its words and images back, ahead of anything written since (a
   * message queued meanwhile then waits for the user: webview/chat/giveBack.ts).
   */
  v.strictObject({ type: v.literal('unsent') }),
  /** Rewind to here took a message back: its words go into the composer, ahead of anything written there. */
  v.strictObject({ type: v.literal('draft'), text: Text }),
  /** The workspace files matching a `mentionQuery`, most relevant first (at most {@link MAX_MENTION_RESULTS}). */
  v.strictObject({
    type: v.literal('mentionResults'),
    requestId: v.number(),
    items: v.pipe(
      v.array(v.strictObject({ path: MentionPath, kind: v.picklist(['file']) })),
      v.maxLength(MAX_MENTION_RESULTS),
    ),
  }),
  /**
   * The items of a compacted group, built from its record's originals (ids prefixed with the
   * compaction's, see compactedItemId); `error` when the record is no longer kept.
   */
  v.strictObject({
    type: v.literal('compactedItems'),
    compactionId: v.string(),
    items: v.array(ChatItemSchema),
    error: v.optional(v.string()),
  }),
  /** A cleared tool result's original text (capped like any result), or why it cannot be shown. */
  v.strictObject({
    type: v.literal('clearedResult'),
    toolUseId: v.string(),
    text: v.optional(v.string()),
    error: v.optional(v.string()),
  }),
  /** A retry is scheduled: show a countdown (cleared by `waitMs: 0`). */
  v.strictObject({
    type: v.literal('retrying'),
    waitMs: v.number(),
    attempt: v.number(),
    reason: v.string(),
    /** The API's id of the request that failed (shown under Details, not in `reason`). */
    requestId: v.optional(v.pipe(v.string(), v.maxLength(200))),
  }),
  /** The agent's plan as it stands (src/protocol/plan.ts): the checklist above the composer. */
  PlanSchema,
]);

/** A message the host sends to the chat webview. */
export type ChatToWebview = v.InferOutput<typeof ToWebviewSchema>;
/** One row of the request ledger shown in the preview. */
export type LedgerRow = v.InferOutput<typeof LedgerRowSchema>;

/** Validates a message from the host (the webview checks too: defence in depth). */
export function parseChatToWebview(input: unknown): Parsed<ChatToWebview> {
  return parseWith(ToWebviewSchema, input);
}
