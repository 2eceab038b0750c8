/**
 * What `normalize` changed so that a request is valid: one value per repair, in the order of
 * the messages, for the request ledger, the budget panel, the preview and the host's log.
 */

/** The kinds of repair, each a rule of the Messages API a state may break. */
export type RepairKind =
  /** A tool_use with no tool_result in the next message got one saying it was interrupted (`INTERRUPTED_CALL`). */
  | 'tool_use_interrupted'
  /** A tool_result whose tool_use is not in the message just before became text. */
  | 'tool_result_orphan'
  /** A second tool_result for one tool_use became text. */
  | 'tool_result_duplicate'
  /** Tool results were moved before the other content of their user message. */
  | 'tool_result_moved'
  /** A tool_use id already used earlier was renamed (with its result). */
  | 'tool_use_id_duplicate'
  /** A tool call id outside `[a-zA-Z0-9_-]+` was rewritten (with its result). */
  | 'tool_id_invalid'
  /** A tool_use input that is not a JSON object was wrapped in one. */
  | 'tool_input_invalid'
  /** Consecutive messages of one role were sent as one message. */
  | 'messages_merged'
  /** The conversation did not start with a user message: a placeholder was put first. */
  | 'first_not_user'
  /** The request ended with an assistant message (a prefill, refused by Claude 4.6 models): a user message was appended. */
  | 'ends_with_assistant'
  /** Lone UTF-16 surrogates were replaced by U+FFFD. */
  | 'lone_surrogate'
  /** An empty or whitespace-only text block was left out. */
  | 'empty_text_dropped'
  /** A message left without content was left out. */
  | 'empty_message'
  /** An error tool result with no content got a placeholder (the API refuses an empty one). */
  | 'error_result_empty'
  /** A thinking block without a valid signature was left out. */
  | 'thinking_dropped'
  /** A thinking block whose prefix changed since it was produced (and every one after it) was left out (thinkingBinding.ts). */
  | 'thinking_unbound'
  /** An image with a media type the API does not take became a note. */
  | 'image_invalid'
  /** An image whose bytes are of another supported format than its media type was sent with the right one. */
  | 'image_type_fixed'
  /** An image over one of the API's per-request image limits (count, size) was sent as a note (imageLimits.ts). */
  | 'image_over_limit'
  /** A block in a role that cannot send it (a tool_use in a user message…) became text or was left out. */
  | 'block_wrong_role'
  /** A server tool call without its result in its assistant message (or the reverse), or a malformed one, was left out. */
  | 'server_tool_unpaired'
  /** A tool search result's reference to a tool that is not deferred in the request was left out (serverBlocks.ts). */
  | 'tool_reference_unresolved';

/** One repair: its kind, the message it is in (the id in the stored state) and a sentence. */
export interface Repair {
  readonly kind: RepairKind;
  readonly messageId?: string;
  /** The block it changed or stands for, when there is one (the ledger marks that row). */
  readonly blockId?: string;
  readonly detail: string;
}

/** The shared empty list (a valid state's repairs: nothing allocated). */
export const NO_REPAIRS: readonly Repair[] = Object.freeze([]);

const PHRASES: Readonly<Record<RepairKind, readonly [one: string, many: string]>> = {
  tool_use_interrupted: ['interrupted tool call answered', 'interrupted tool calls answered'],
  tool_result_orphan: ['tool result without its call sent as text', 'tool results without their calls sent as text'],
  tool_result_duplicate: ['duplicate tool result sent as text', 'duplicate tool results sent as text'],
  tool_result_moved: ['message with its tool results moved first', 'messages with their tool results moved first'],
  tool_use_id_duplicate: ['repeated tool call id renamed', 'repeated tool call ids renamed'],
  tool_id_invalid: ['invalid tool call id rewritten', 'invalid tool call ids rewritten'],
  tool_input_invalid: ['tool call input wrapped in an object', 'tool call inputs wrapped in an object'],
  messages_merged: ['run of same-role messages merged', 'runs of same-role messages merged'],
  first_not_user: ['placeholder user message put first', 'placeholder user messages put first'],
  ends_with_assistant: [
    'user message appended after the final answer',
    'user messages appended after the final answer',
  ],
  lone_surrogate: ['block with lone surrogates fixed', 'blocks with lone surrogates fixed'],
  empty_text_dropped: ['empty text block left out', 'empty text blocks left out'],
  empty_message: ['empty message left out', 'empty messages left out'],
  error_result_empty: ['empty error result given a placeholder', 'empty error results given a placeholder'],
  thinking_dropped: ['unsigned thinking block left out', 'unsigned thinking blocks left out'],
  thinking_unbound: [
    'thinking block after a change to the context left out',
    'thinking blocks after a change to the context left out',
  ],
  image_invalid: [
    'image with an unsupported type replaced by a note',
    'images with an unsupported type replaced by a note',
  ],
  image_type_fixed: ['image sent with the media type of its bytes', 'images sent with the media type of their bytes'],
  image_over_limit: [
    "image over the API's image limits sent as a note",
    "images over the API's image limits sent as a note",
  ],
  block_wrong_role: ['block in the wrong role sent as text', 'blocks in the wrong role sent as text'],
  server_tool_unpaired: ['unpaired server tool block left out', 'unpaired server tool blocks left out'],
  tool_reference_unresolved: [
    'search result with a reference to a tool no longer deferred trimmed',
    'search results with references to tools no longer deferred trimmed',
  ],
};

/**
 * One line for the views and the log, e.g. `Repaired before sending: 1 interrupted tool call
 * answered, 2 empty text blocks left out.`; undefined when there is nothing to say.
 */
export function describeRepairs(repairs: readonly Repair[]): string | undefined {
  if (repairs.length === 0) return undefined;
  const counts = new Map<RepairKind, number>();
  for (const r of repairs) counts.set(r.kind, (counts.get(r.kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, n]) => `${n} ${PHRASES[kind][n === 1 ? 0 : 1]}`);
  return `Repaired before sending: ${parts.join(', ')}.`;
}
