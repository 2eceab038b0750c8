/**
 * The runtime schema of a conversation message as a session line holds it (every block type
 * with its metadata), and the number schemas the session lines share. Part of the session
 * file format (entries.ts: its version rules apply). Pure.
 */
import * as v from 'valibot';
import { IMAGE_MEDIA_TYPES } from '../../protocol/imageTokens';
import { TOOL_EFFECTS } from '../tools/toolDefinition';

/** A finite number. */
export const num = v.pipe(v.number(), v.finite());
/** A safe integer. */
export const int = v.pipe(v.number(), v.safeInteger());
const meta = v.strictObject({
  id: v.string(),
  tier: v.picklist([0, 1, 2, 3]),
  source: v.picklist([
    'system',
    'user',
    'assistant',
    'tool',
    'reminder',
    'ide_selection',
    'ide_opened_file',
    'attached_file',
    'hook',
    'compactor',
    'instructions',
    'workspace',
  ]),
  createdAt: num,
  origin: v.optional(v.string()),
  toolUseId: v.optional(v.string()),
  effect: v.optional(v.picklist(TOOL_EFFECTS)),
  injection: v.optional(
    v.strictObject({
      kind: v.picklist(['ide_opened_file', 'ide_selection', 'attached_file', 'system_reminder', 'hook']),
      tag: v.string(),
      path: v.optional(v.string()),
      startLine: v.optional(int),
      endLine: v.optional(int),
      contentStart: v.optional(int),
    }),
  ),
  tokenCount: v.optional(num),
  pinned: v.boolean(),
  compactable: v.boolean(),
});
const mediaType = v.picklist(IMAGE_MEDIA_TYPES);
const resultContent = v.union([
  v.string(),
  v.array(
    v.variant('type', [
      v.strictObject({ type: v.literal('text'), text: v.string() }),
      v.strictObject({ type: v.literal('image'), mediaType, data: v.string() }),
    ]),
  ),
]);
const block = v.variant('type', [
  v.strictObject({ type: v.literal('text'), text: v.string(), meta }),
  // JSON drops an undefined input; read it back as the empty object the API expects.
  v.strictObject({
    type: v.literal('tool_use'),
    id: v.string(),
    name: v.string(),
    input: v.optional(v.unknown(), () => ({})),
    meta,
  }),
  v.strictObject({
    type: v.literal('tool_result'),
    toolUseId: v.string(),
    content: resultContent,
    isError: v.optional(v.boolean()),
    meta,
  }),
  v.strictObject({
    type: v.literal('thinking'),
    thinking: v.string(),
    signature: v.optional(v.string()),
    redactedData: v.optional(v.string()),
    prefixDigest: v.optional(v.string()),
    meta,
  }),
  v.strictObject({ type: v.literal('image'), mediaType, data: v.string(), meta }),
  v.strictObject({
    type: v.literal('summary'),
    text: v.string(),
    compactionId: v.string(),
    turnRange: v.strictTuple([int, int]),
    server: v.optional(
      v.strictObject({
        encryptedContent: v.optional(v.nullable(v.string())),
        signature: v.optional(v.nullable(v.string())),
        toolChanges: v.optional(v.nullable(v.array(v.looseObject({ type: v.string() })))),
        onDemand: v.optional(v.literal(true)),
      }),
    ),
    meta,
  }),
  // The API's block verbatim: only its `type` is checked here (normalize checks the rest before sending).
  v.strictObject({
    type: v.literal('server_tool'),
    raw: v.looseObject({ type: v.string() }),
    meta,
  }),
]);
/** One message of the conversation, strictly. */
export const messageSchema = v.strictObject({
  id: v.string(),
  role: v.picklist(['user', 'assistant']),
  blocks: v.array(block),
  turn: int,
});
