import * as v from 'valibot';
import { IMAGE_MEDIA_TYPES } from './imageTokens';

/**
 * What the chat view shows, item by item. The host builds these from the conversation and
 * its events; the webview only renders them (as text, never as HTML from the model).
 */

const InjectedSchema = v.strictObject({
  /** `ide_opened_file`, `ide_selection`, `system-reminder` or a hook tag. */
  tag: v.string(),
  /** Short label, e.g. `src/a.ts:3-5`. */
  label: v.string(),
  /** The exact tagged block that was sent. */
  text: v.string(),
});

/**
 * An answer's extended thinking: its text (plain text, shown escaped), calibrated `tokens`
 * once known, and `redacted` when some of it came as encrypted `redacted_thinking` blocks
 * (nothing to show for those: "Thinking (redacted)").
 */
const ThinkingSchema = v.strictObject({
  text: v.string(),
  tokens: v.optional(v.number()),
  redacted: v.optional(v.boolean()),
});

/**
 * A subagent's figures on its task call's card (live while it runs): its child session (Open
 * transcript), model, state and what it did and cost — billed to the turn.
 */
const SubagentCardSchema = v.strictObject({
  sessionId: v.pipe(v.string(), v.maxLength(200), v.regex(/^[\w.:-]*$/)),
  model: v.string(),
  state: v.picklist(['running', 'done', 'failed', 'stopped']),
  requests: v.number(),
  rounds: v.number(),
  toolCalls: v.number(),
  /** The last tool call, one line. */
  lastTool: v.optional(v.pipe(v.string(), v.maxLength(400))),
  compactions: v.number(),
  /** Every prompt and answer token of its requests. */
  tokens: v.number(),
  /** Null when a price is unknown. */
  costUsd: v.nullable(v.number()),
});

/** A subagent's card figures. */
export type SubagentCard = v.InferOutput<typeof SubagentCardSchema>;

/** An answer's thinking as the chat shows it. */
export type ChatThinking = v.InferOutput<typeof ThinkingSchema>;

/** Items of the transcript, keyed by `id` (an update replaces the item with the same id). */
export const ChatItemSchema = v.variant('kind', [
  v.strictObject({
    kind: v.literal('user'),
    id: v.string(),
    /**
     * The conversation message the words are in (what Pin pins), when it is not `id`: a
     * message a compaction merged holds several of the user's messages, one bubble each.
     */
    messageId: v.optional(v.string()),
    text: v.string(),
    injected: v.array(InjectedSchema),
    /**
     * Images sent with the words (shown as thumbnails) with their calibrated tokens. `ref`
     * names the image for the life of the session (its block id); `data` (base64) comes only
     * the first time a webview is sent that image: later posts of the same item (a transcript
     * rebuilt by a compaction, a pin) leave it out and the webview reuses what it has (see
     * host/chat/sentImages.ts and webview/chat/imageCache.ts), so megabytes of screenshots are
     * not posted again with every rebuild.
     */
    images: v.optional(
      v.array(
        v.strictObject({
          ref: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
          mediaType: v.picklist(IMAGE_MEDIA_TYPES),
          data: v.optional(v.string()),
          tokens: v.number(),
        }),
      ),
    ),
    turn: v.number(),
    pinned: v.optional(v.boolean()),
    tokens: v.optional(v.number()),
    /** The words are a handoff note (a continued session's first message): shown folded, as Markdown. */
    handoff: v.optional(v.boolean()),
  }),
  /**
   * `messageId`: the conversation message once the answer is complete (pinning needs it).
   * `thinking`: the answer's extended thinking, shown collapsed above it (see ThinkingSchema).
   * `standIn`: the extension wrote this answer in Claude's place (a failed request, a stop;
   * see core/agent/standInAnswers.ts), so the chat shows it as the extension's note.
   */
  v.strictObject({
    kind: v.literal('assistant'),
    id: v.string(),
    text: v.string(),
    streaming: v.boolean(),
    messageId: v.optional(v.string()),
    pinned: v.optional(v.boolean()),
    tokens: v.optional(v.number()),
    thinking: v.optional(ThinkingSchema),
    standIn: v.optional(v.boolean()),
  }),
  /**
   * A tool call. `summary`: what it acts on, on one line (`Read src/a.ts`, `echo · everything
   * "hi"`; core/tools/callSummary.ts), shown on the collapsed row; `name` is the tool's full
   * name. `status`: `awaiting` while its approval card waits for the user, `declined` when the
   * user said no (with their `reason`, if any) — neither is an error. `durationMs` leaves out
   * the time the user took to answer.
   */
  v.strictObject({
    kind: v.literal('tool'),
    id: v.string(),
    name: v.string(),
    summary: v.pipe(v.string(), v.maxLength(400), v.regex(/^[^\n\r]*$/)),
    input: v.string(),
    status: v.picklist(['running', 'awaiting', 'done', 'error', 'declined', 'cancelled']),
    reason: v.optional(v.string()),
    result: v.optional(v.string()),
    durationMs: v.optional(v.number()),
    /** Calibrated tokens of the whole result as sent to the model (not just the preview). */
    tokens: v.optional(v.number()),
    /**
     * The result was cleared by compaction (masked, snipped or cleared when the cache went
     * cold); the webview asks for the original (`openClearedResult`) when the user clicks.
     */
    cleared: v.optional(v.boolean()),
    /**
     * The result was saved to a file by a guard (too large alone, or with the others of its
     * round); the model sees its beginning and the path.
     */
    spilled: v.optional(v.boolean()),
    /** A task call: its subagent's figures (see SubagentCardSchema). */
    subagent: v.optional(SubagentCardSchema),
  }),
  /**
   * The agent asks before a side effect: an edit (with its diff) or a shell command. Answered
   * inline with Apply / Reject (optionally with a reason for the model); the host only accepts
   * an answer for an approval that is still pending.
   */
  v.strictObject({
    kind: v.literal('approval'),
    id: v.string(),
    tool: v.picklist(['edit_file', 'run_command', 'mcp']),
    /** The file (workspace-relative), the command line, or an MCP call's input as indented JSON. */
    subject: v.string(),
    /** One line of context: "new file", the folder a command runs in, or an MCP tool's server and name. */
    detail: v.string(),
    /**
     * An MCP tool's call: the server, the tool's own name, its whole description (untrusted:
     * shown, never followed) and whether it says it only reads.
     */
    mcp: v.optional(
      v.strictObject({ server: v.string(), tool: v.string(), description: v.string(), readOnly: v.boolean() }),
    ),
    /** The unified diff of an edit, line by line (`op`: '+', '-', ' ' or '@' for a hunk header). */
    diff: v.optional(v.array(v.strictObject({ op: v.picklist(['+', '-', ' ', '@']), text: v.string() }))),
    added: v.optional(v.number()),
    removed: v.optional(v.number()),
    /** Diff lines left out of `diff` (the full diff is in the diff editor). */
    omittedLines: v.optional(v.number()),
    state: v.picklist(['pending', 'approved', 'rejected', 'cancelled']),
    reason: v.optional(v.string()),
    /**
     * An edit to a file that can run code (git hooks, tasks, package.json scripts, MCP
     * configuration …), change the editor's settings or hold secrets: the card shows the flag
     * and `reason` prominently. Such an edit is never approved without the user's answer.
     */
    risk: v.optional(
      v.strictObject({ kind: v.picklist(['runs-code', 'changes-settings', 'holds-secrets']), reason: v.string() }),
    ),
  }),
  /** A notice; `action: 'handoff'`: it offers Continue in a new session (a button). */
  v.strictObject({
    kind: v.literal('notice'),
    id: v.string(),
    level: v.picklist(['info', 'warning']),
    text: v.string(),
    action: v.optional(v.picklist(['handoff'])),
  }),
  /**
   * The first card of a session handed off to: "Continued from <title>" with a button that opens
   * the old session (`sessionId`).
   */
  v.strictObject({
    kind: v.literal('continued'),
    id: v.string(),
    sessionId: v.pipe(v.string(), v.maxLength(200), v.regex(/^[\w.:-]*$/)),
    title: v.string(),
  }),
  /**
   * A compaction summary standing in for older turns: expands to the summary; links to the
   * originals. `inTurn`: it ends inside a turn (the earlier tool rounds of that turn). `text`
   * is the summary's own prose (Markdown) for a person, without what only the model reads
   * (heading, notes, compaction id, recall footer); `leftOut`: messages too large to summarise;
   * `lost`/`lostMore`: identifiers of the originals the summary does not carry (listed, and
   * how many more).
   */
  v.strictObject({
    kind: v.literal('summary'),
    id: v.string(),
    firstTurn: v.number(),
    lastTurn: v.number(),
    text: v.string(),
    compactionId: v.string(),
    inTurn: v.optional(v.boolean()),
    leftOut: v.optional(v.array(v.string())),
    lost: v.optional(v.array(v.string())),
    lostMore: v.optional(v.number()),
  }),
  /**
   * The rounds a compaction replaced, kept in view as one collapsed group beside its summary
   * card: the counts of what it holds (tool calls, answers, the user's messages, earlier
   * summaries). Its items are not sent with the transcript (a record can hold megabytes): the
   * webview asks for them (`openCompacted`) when the user opens the group.
   */
  v.strictObject({
    kind: v.literal('compacted'),
    id: v.string(),
    compactionId: v.pipe(v.string(), v.maxLength(200)),
    toolCalls: v.number(),
    answers: v.number(),
    userMessages: v.number(),
    summaries: v.number(),
  }),
  /**
   * An error; `retryable`: it shows Retry. `action: 'setApiKey'`: the error is about the API
   * key (none set, or rejected) and shows a Set API key button. `requestId`: the API's id of
   * the failed request, kept out of `text` and shown under Details.
   */
  v.strictObject({
    kind: v.literal('error'),
    id: v.string(),
    text: v.string(),
    retryable: v.boolean(),
    action: v.optional(v.picklist(['setApiKey'])),
    /** The API's request id (for support): shown in a disclosure, not in the text. */
    requestId: v.optional(v.pipe(v.string(), v.maxLength(200))),
  }),
]);

/** One item of the chat transcript. */
export type ChatItem = v.InferOutput<typeof ChatItemSchema>;

/**
 * The id an item gets inside a compacted group: the compaction's id, `/`, the item's own id
 * (nested groups prefix again). Tool call ids never hold `/` (the API allows `[A-Za-z0-9_-]`),
 * so {@link ownItemId} gives the call's id back.
 */
export function compactedItemId(compactionId: string, id: string): string {
  return `${compactionId}/${id}`;
}

/** An item's own id without the prefixes of the groups it stands in (see {@link compactedItemId}). */
export function ownItemId(id: string): string {
  return id.slice(id.lastIndexOf('/') + 1);
}
