import * as v from 'valibot';

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

/** Items of the transcript, keyed by `id` (an update replaces the item with the same id). */
export const ChatItemSchema = v.variant('kind', [
  v.strictObject({ kind: v.literal('user'), id: v.string(), text: v.string(), injected: v.array(InjectedSchema), turn: v.number(), pinned: v.optional(v.boolean()), tokens: v.optional(v.number()) }),
  /** `messageId`: the conversation message once the answer is complete (pinning needs it). */
  v.strictObject({ kind: v.literal('assistant'), id: v.string(), text: v.string(), streaming: v.boolean(), messageId: v.optional(v.string()), pinned: v.optional(v.boolean()), tokens: v.optional(v.number()) }),
  v.strictObject({
    kind: v.literal('tool'),
    id: v.string(),
    name: v.string(),
    input: v.string(),
    status: v.picklist(['running', 'done', 'error', 'cancelled']),
    result: v.optional(v.string()),
    durationMs: v.optional(v.number()),
  }),
  v.strictObject({ kind: v.literal('notice'), id: v.string(), level: v.picklist(['info', 'warning']), text: v.string() }),
  /** A compaction summary standing in for older turns: expands to the summary; links to the originals. */
  v.strictObject({ kind: v.literal('summary'), id: v.string(), firstTurn: v.number(), lastTurn: v.number(), text: v.string(), compactionId: v.string() }),
  v.strictObject({ kind: v.literal('error'), id: v.string(), text: v.string(), retryable: v.boolean() }),
]);

/** One item of the chat transcript. */
export type ChatItem = v.InferOutput<typeof ChatItemSchema>;
