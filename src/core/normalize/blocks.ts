/**
 * Block-level repairs of one message, memoised per Message object: lone surrogates replaced
 * everywhere (text, summaries, tool names, tool inputs at any depth, tool results, image
 * data); empty text left out; unsigned thinking left out (a redacted block, with its data, is kept); images of a media type the API does
 * not take turned into text; blocks in a role that cannot send them replaced by the shared
 * rule (`wrongRoleBlocks`, repairRules.ts); invalid tool call ids rewritten; a tool input that
 * is not an object wrapped in one. Also records what the
 * structural pass needs (tool_use and tool_result ids, whether results come first), so a
 * valid conversation is checked with no allocation once each message has been seen.
 */
import type {
  Block,
  ImageMediaType,
  Message,
  ToolResultBlock,
  ToolResultContent,
  ToolUseBlock,
} from '../conversation/conversationModel';
import { NO_REPAIRS, type Repair } from './repairs';
import { derivedMeta, roleMayHold, textFor, wrongRoleBlocks } from './repairRules';
import { pairServerBlocks, repairServerBlock, serverBlockNeedsRepair } from './serverBlocks';
import { sniffImageType } from '../conversation/imageSize';
import { hasLoneSurrogate, isPlainObject, replaceLoneSurrogates, replaceLoneSurrogatesDeep } from './surrogates';

/** What normalize needs to know about one message, and the blocks it sends. */
export interface MessageScan {
  /** The blocks to send: the message's own array when nothing needed repair. */
  readonly blocks: readonly Block[];
  /** Block-level repairs (empty when `blocks === message.blocks`). */
  readonly repairs: readonly Repair[];
  /** Ids of the tool_use blocks sent, in order. */
  readonly uses: readonly string[];
  /** Ids of the tool_result blocks sent, in order. */
  readonly results: readonly string[];
  /** No tool_result comes after another kind of block. */
  readonly resultsFirst: boolean;
}

/** Tool call ids the API accepts (`tool_use.id`, `tool_result.tool_use_id`). */
export const TOOL_ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
const IMAGE_MEDIA: ReadonlySet<string> = new Set<ImageMediaType>([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);
const NONE: readonly string[] = Object.freeze([]);
const scans = new WeakMap<Message, MessageScan>();

/** The scan of `m` (computed once per Message object). */
export function scanMessage(m: Message): MessageScan {
  const hit = scans.get(m);
  if (hit) return hit;
  const dirty = m.blocks.some((b) => needsRepair(b, m.role));
  const repairs: Repair[] = [];
  const each = dirty ? m.blocks.flatMap((b) => (needsRepair(b, m.role) ? repairBlock(b, m, repairs) : [b])) : m.blocks;
  const blocks = pairServerBlocks(each, m, (kind, detail) => repairs.push({ kind, messageId: m.id, detail }));
  const scan = { blocks, repairs: repairs.length > 0 ? repairs : NO_REPAIRS, ...toolIds(blocks) };
  scans.set(m, scan);
  return scan;
}

/**
 * A tool call id the API accepts: characters outside `[a-zA-Z0-9_-]` become `_`, and a hash
 * of the original is appended (deterministic, so a call and its result stay paired).
 */
export function sanitizeToolId(id: string): string {
  if (TOOL_ID_PATTERN.test(id)) return id;
  // A hash of the original keeps two ids apart that differ only in refused characters
  // (`a.b` and `a_b`): otherwise their results could be paired with the wrong call.
  return `${id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'toolu'}_${fnv1a(id).toString(36)}`;
}

/** FNV-1a over the UTF-16 code units of `text`: a 32-bit unsigned hash. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function toolIds(blocks: readonly Block[]): Pick<MessageScan, 'uses' | 'results' | 'resultsFirst'> {
  let uses: string[] | undefined;
  let results: string[] | undefined;
  let resultsFirst = true;
  let other = false;
  for (const b of blocks) {
    if (b.type === 'tool_use') (uses ??= []).push(b.id);
    if (b.type === 'tool_result') {
      (results ??= []).push(b.toolUseId);
      if (other) resultsFirst = false;
    } else other = true;
  }
  return { uses: uses ?? NONE, results: results ?? NONE, resultsFirst };
}

function needsRepair(b: Block, role: Message['role']): boolean {
  switch (b.type) {
    case 'text':
      return b.text.trim().length === 0 || hasLoneSurrogate(b.text);
    case 'summary':
      // Empty, it is left out (the shared rule 2; a server compaction block's content must not be
      // empty either, SDK: "Empty string content is not allowed"); a server one only in an assistant message.
      return b.text.trim() === '' || hasLoneSurrogate(b.text) || (b.server !== undefined && role !== 'assistant');
    case 'thinking':
      if (b.redactedData !== undefined)
        return role !== 'assistant' || b.redactedData === '' || hasLoneSurrogate(b.redactedData);
      return role !== 'assistant' || !b.signature || hasLoneSurrogate(b.thinking) || hasLoneSurrogate(b.signature);
    case 'tool_use':
      return (
        role !== 'assistant' ||
        !TOOL_ID_PATTERN.test(b.id) ||
        hasLoneSurrogate(b.name) ||
        !isPlainObject(b.input) ||
        replaceLoneSurrogatesDeep(b.input) !== b.input
      );
    case 'tool_result':
      return (
        role !== 'user' ||
        !TOOL_ID_PATTERN.test(b.toolUseId) ||
        contentNeedsRepair(b.content) ||
        (b.isError === true && contentEmpty(b.content))
      );
    case 'image':
      return role !== 'user' || imageNeedsRepair(b.mediaType, b.data);
    case 'server_tool':
      return serverBlockNeedsRepair(b, role);
  }
}

/**
 * Whether a tool result's content says nothing (empty or blank text, no image): the API
 * refuses that with `is_error` ("content cannot be empty if is_error is true").
 */
function contentEmpty(c: ToolResultContent): boolean {
  if (typeof c === 'string') return c.trim() === '';
  return c.every((p) => p.type === 'text' && p.text.trim() === '');
}

/** An image the API would refuse: an unsupported media type, lone surrogates, or bytes of another format than it says. */
function imageNeedsRepair(mediaType: string, data: string): boolean {
  return sendableMediaType(mediaType, data) !== mediaType;
}

/**
 * The media type an image can be sent with: its own when its bytes agree (or are of no known
 * format, left to the API), the format of its bytes when they say another supported one (a
 * PNG labelled image/jpeg is common), else undefined (it becomes a note).
 */
function sendableMediaType(mediaType: string, data: string): ImageMediaType | undefined {
  if (hasLoneSurrogate(data)) return undefined;
  const actual = sniffImageType(data);
  if (actual !== undefined) return actual;
  return IMAGE_MEDIA.has(mediaType) ? (mediaType as ImageMediaType) : undefined;
}

function contentNeedsRepair(c: ToolResultContent): boolean {
  if (typeof c === 'string') return hasLoneSurrogate(c);
  return c.some((p) =>
    p.type === 'text' ? p.text.trim().length === 0 || hasLoneSurrogate(p.text) : imageNeedsRepair(p.mediaType, p.data),
  );
}

/** The blocks `b` becomes (none when it is left out), each change recorded in `repairs`. */
function repairBlock(b: Block, m: Message, repairs: Repair[]): Block[] {
  const note = (kind: Repair['kind'], detail: string) =>
    repairs.push({ kind, messageId: m.id, blockId: b.meta.id, detail });
  const surrogates = (what: string) => note('lone_surrogate', `Lone surrogates in ${what} were replaced by U+FFFD.`);
  if (!roleMayHold(m.role, b)) return wrongRole(b, m, note);
  switch (b.type) {
    case 'text': {
      const text = replaceLoneSurrogates(b.text);
      if (text.trim().length === 0) {
        note('empty_text_dropped', `An empty text block of message ${m.id} was left out.`);
        return [];
      }
      surrogates(`a text block of message ${m.id}`);
      return [{ ...b, text, meta: derivedMeta(b.meta) }];
    }
    case 'summary':
      if (b.text.trim() === '') {
        note(
          'empty_text_dropped',
          `An empty ${b.server !== undefined ? 'server compaction block' : 'summary'} of message ${m.id} was left out.`,
        );
        return [];
      }
      if (b.server !== undefined && m.role !== 'assistant') {
        note('block_wrong_role', `A server compaction block in user message ${m.id} was sent as a summary in text.`);
        const { server: _server, ...summary } = b;
        return [{ ...summary, text: replaceLoneSurrogates(b.text), meta: derivedMeta(b.meta) }];
      }
      surrogates(`the summary ${b.compactionId}`);
      return [{ ...b, text: replaceLoneSurrogates(b.text), meta: derivedMeta(b.meta) }];
    case 'thinking':
      if (b.redactedData !== undefined)
        note(
          'thinking_dropped',
          `A redacted thinking block of message ${m.id} with empty or invalid data was left out.`,
        );
      else
        note(
          'thinking_dropped',
          `A thinking block of message ${m.id} ${b.signature ? 'with lone surrogates (its signature cannot match)' : 'without a signature'} was left out.`,
        );
      return [];
    case 'tool_use':
      return [repairToolUse(b, m, note)];
    case 'tool_result':
      return repairToolResult(b, m, note);
    case 'image': {
      const mediaType = sendableMediaType(b.mediaType, b.data);
      if (mediaType !== undefined) {
        note(
          'image_type_fixed',
          `An image of message ${m.id} said ${JSON.stringify(replaceLoneSurrogates(b.mediaType))} but is ${mediaType}; it was sent as ${mediaType}.`,
        );
        return [{ ...b, mediaType, meta: derivedMeta(b.meta) }];
      }
      note(
        'image_invalid',
        `An image of message ${m.id} ${IMAGE_MEDIA.has(b.mediaType) ? 'with invalid data' : 'of an unsupported media type'} became a note.`,
      );
      return [textFor(b.meta, imageNote(b.mediaType))];
    }
    case 'server_tool':
      return repairServerBlock(b, m, note);
  }
}

/**
 * A block in a role that cannot hold it: the shared rule's replacement (repairRules.ts), its
 * text with lone surrogates replaced; noted as `block_wrong_role`.
 */
function wrongRole(b: Block, m: Message, note: Note): Block[] {
  const what =
    b.type === 'tool_use'
      ? `A tool call ${replaceLoneSurrogates(b.name)} (${replaceLoneSurrogates(b.id)})`
      : b.type === 'tool_result'
        ? `A tool result for ${replaceLoneSurrogates(b.toolUseId)}`
        : b.type === 'server_tool'
          ? `A server tool block (${replaceLoneSurrogates(String(b.raw.type))})`
          : `A ${b.type} block`;
  const out = wrongRoleBlocks(b).map((r) =>
    r.type === 'text' && hasLoneSurrogate(r.text) ? { ...r, text: replaceLoneSurrogates(r.text) } : r,
  );
  note('block_wrong_role', `${what} in ${m.role} message ${m.id} ${out.length > 0 ? 'became text' : 'was left out'}.`);
  return out;
}

function imageNote(mediaType: string): string {
  const type = replaceLoneSurrogates(mediaType);
  return IMAGE_MEDIA.has(mediaType)
    ? `[An image (${type}) with invalid data was left out.]`
    : `[An image of the unsupported media type ${JSON.stringify(type)} was left out.]`;
}

type Note = (kind: Repair['kind'], detail: string) => void;

function repairToolUse(b: ToolUseBlock, m: Message, note: Note): Block {
  const name = replaceLoneSurrogates(b.name);
  const wrapped = isPlainObject(b.input)
    ? b.input
    : b.input === undefined || b.input === null
      ? {}
      : { value: b.input };
  const input = replaceLoneSurrogatesDeep(wrapped);
  const id = sanitizeToolId(b.id);
  if (id !== b.id)
    note('tool_id_invalid', `The tool call id ${JSON.stringify(replaceLoneSurrogates(b.id))} was rewritten as ${id}.`);
  if (wrapped !== b.input)
    note('tool_input_invalid', `The input of tool call ${id} was not an object; it was wrapped in one.`);
  if (name !== b.name || input !== wrapped)
    note('lone_surrogate', `Lone surrogates in tool call ${id} were replaced by U+FFFD.`);
  return { ...b, id, name, input, meta: derivedMeta(b.meta, id) };
}

function repairToolResult(b: ToolResultBlock, m: Message, note: Note): Block[] {
  const content = repairContent(b.content, (kind, what) =>
    note(kind, `${what} in the result of tool call ${sanitizeToolId(b.toolUseId)} (message ${m.id}).`),
  );
  const id = sanitizeToolId(b.toolUseId);
  if (id !== b.toolUseId)
    note(
      'tool_id_invalid',
      `The tool result id ${JSON.stringify(replaceLoneSurrogates(b.toolUseId))} was rewritten as ${id}.`,
    );
  if (b.isError === true && contentEmpty(content)) {
    note('error_result_empty', `The empty error result of tool call ${id} (message ${m.id}) got a placeholder.`);
    return [{ ...b, toolUseId: id, content: EMPTY_ERROR_TEXT, meta: derivedMeta(b.meta, id) }];
  }
  return [{ ...b, toolUseId: id, content, meta: derivedMeta(b.meta, id) }];
}

/** What an error tool result with no content says instead. */
export const EMPTY_ERROR_TEXT = '(the tool failed without a message)';

/**
 * A tool result's content with lone surrogates replaced, empty text parts left out and
 * invalid images noted; each change told to `note`.
 */
function repairContent(c: ToolResultContent, note: (kind: Repair['kind'], what: string) => void): ToolResultContent {
  if (typeof c === 'string') {
    const fixed = replaceLoneSurrogates(c);
    if (fixed !== c) note('lone_surrogate', 'Lone surrogates were replaced by U+FFFD');
    return fixed;
  }
  if (!contentNeedsRepair(c)) return c;
  return c.flatMap((p): Exclude<ToolResultContent, string>[number][] => {
    if (p.type === 'text') {
      const text = replaceLoneSurrogates(p.text);
      if (text.trim().length === 0) {
        note('empty_text_dropped', 'An empty text part was left out');
        return [];
      }
      if (text !== p.text) note('lone_surrogate', 'Lone surrogates were replaced by U+FFFD');
      return [{ type: 'text' as const, text }];
    }
    const mediaType = sendableMediaType(p.mediaType, p.data);
    if (mediaType === p.mediaType) return [p];
    if (mediaType !== undefined) {
      note(
        'image_type_fixed',
        `An image said ${JSON.stringify(replaceLoneSurrogates(p.mediaType))} but is ${mediaType}; it was sent as ${mediaType}`,
      );
      return [{ ...p, mediaType }];
    }
    note('image_invalid', 'An invalid image became a note');
    return [{ type: 'text' as const, text: imageNote(p.mediaType) }];
  });
}
