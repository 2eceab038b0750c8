/**
 * Schema checks of one content block of a message (and of the blocks inside a tool result):
 * known type, required fields, no extra fields, non-empty text, tool_use id pattern, thinking
 * signature, valid `cache_control`. Wording follows the API's validation errors.
 */
import { checkCacheControl } from './cacheControl';
import { invalid, isObject, noExtraKeys, requireString } from './reject';

/** Block types a message may contain. */
export const BLOCK_TYPES = [
  'text',
  'image',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'document',
  'compaction',
  'server_tool_use',
  'tool_search_tool_result',
] as const;

/** Pattern of tool_use ids (and of tool names, with a length limit). */
export const TOOL_ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

const FIELDS: Record<(typeof BLOCK_TYPES)[number], ReadonlySet<string>> = {
  text: new Set(['type', 'text', 'cache_control', 'citations']),
  image: new Set(['type', 'source', 'cache_control', 'transformations']),
  tool_use: new Set(['type', 'id', 'name', 'input', 'cache_control', 'caller', 'toolset_name']),
  tool_result: new Set(['type', 'tool_use_id', 'content', 'is_error', 'cache_control', 'toolset_name']),
  thinking: new Set(['type', 'thinking', 'signature']),
  redacted_thinking: new Set(['type', 'data']),
  document: new Set(['type', 'source', 'cache_control', 'citations', 'context', 'title']),
  // SDK BetaCompactionBlockParam; only accepted under the compact beta (contextManagement.ts).
  compaction: new Set(['type', 'content', 'encrypted_content', 'signature', 'cache_control', 'tool_changes']),
  // SDK ServerToolUseBlockParam / ToolSearchToolResultBlockParam; their pairing and references: toolSearch.ts.
  server_tool_use: new Set(['type', 'id', 'name', 'input', 'cache_control', 'caller']),
  tool_search_tool_result: new Set(['type', 'tool_use_id', 'content', 'cache_control']),
};

const IMAGE_MEDIA = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

function tagError(loc: string, tag: unknown, expected: readonly string[]): never {
  invalid(
    'block_type',
    `${loc}: Input tag '${String(tag)}' found using 'type' does not match any of the expected tags: ${expected.map((t) => `'${t}'`).join(', ')}`,
  );
}

function isBlockType(t: unknown): t is (typeof BLOCK_TYPES)[number] {
  return typeof t === 'string' && (BLOCK_TYPES as readonly string[]).includes(t);
}

/** Refuses an empty or whitespace-only text. */
export function checkText(text: unknown, loc: string): void {
  const s = requireString(text, `${loc}.text`, 'empty_text');
  if (s.length === 0) invalid('empty_text', `${loc}: text content blocks must be non-empty`);
  if (s.trim().length === 0) invalid('empty_text', `${loc}: text content blocks must contain non-whitespace text`);
}

/** Checks one block of a message with `role` at `loc` (e.g. `messages.2.content.0`). */
export function checkBlock(b: unknown, loc: string, role: 'user' | 'assistant'): void {
  if (!isObject(b)) invalid('block_type', `${loc}: Input should be a valid dictionary`);
  const type = b.type;
  if (!isBlockType(type)) tagError(loc, type, BLOCK_TYPES);
  noExtraKeys(b, FIELDS[type], `${loc}.${type}`);
  const onlyIn = (r: 'user' | 'assistant'): void => {
    if (role !== r) invalid('block_role', `${loc}: \`${type}\` blocks can only be in \`${r}\` messages`);
  };
  switch (type) {
    case 'text':
      checkText(b.text, loc);
      break;
    case 'compaction':
      onlyIn('assistant');
      // SDK: "Empty string content is not allowed"; null is a failed compaction (a no-op).
      if (b.content !== null && b.content !== undefined && (typeof b.content !== 'string' || b.content === ''))
        invalid('compaction_content', `${loc}.compaction.content: must be a non-empty string or null`);
      break;
    case 'image':
      checkImage(b.source, `${loc}.image.source`);
      break;
    case 'document':
      onlyIn('user');
      checkDocument(b.source, `${loc}.document.source`);
      break;
    case 'tool_use': {
      onlyIn('assistant');
      const id = requireString(b.id, `${loc}.tool_use.id`, 'tool_use_id');
      if (!TOOL_ID_PATTERN.test(id))
        invalid('tool_use_id', `${loc}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      requireString(b.name, `${loc}.tool_use.name`, 'tool_use_name');
      if (!isObject(b.input)) invalid('tool_use_input', `${loc}.tool_use.input: Input should be a valid dictionary`);
      break;
    }
    case 'tool_result':
      onlyIn('user');
      checkToolResult(b, loc);
      break;
    case 'thinking':
      onlyIn('assistant');
      requireString(b.thinking, `${loc}.thinking.thinking`, 'thinking');
      requireString(b.signature, `${loc}.thinking.signature`, 'thinking_signature');
      if (b.signature === '') invalid('thinking_signature', `${loc}: Invalid \`signature\` in \`thinking\` block`);
      break;
    case 'redacted_thinking':
      onlyIn('assistant');
      requireString(b.data, `${loc}.redacted_thinking.data`, 'redacted_thinking');
      break;
    case 'server_tool_use':
    case 'tool_search_tool_result':
      onlyIn('assistant');
      break;
  }
  if (type !== 'thinking' && type !== 'redacted_thinking') checkCacheControl(b.cache_control, `${loc}.${type}`);
}

function checkToolResult(b: Record<string, unknown>, loc: string): void {
  const id = requireString(b.tool_use_id, `${loc}.tool_result.tool_use_id`, 'tool_use_id');
  if (!TOOL_ID_PATTERN.test(id))
    invalid('tool_use_id', `${loc}.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
  if (b.is_error !== undefined && typeof b.is_error !== 'boolean')
    invalid('tool_result', `${loc}.tool_result.is_error: Input should be a valid boolean`);
  const content = b.content;
  const empty =
    content === undefined ||
    (typeof content === 'string' && content.trim() === '') ||
    (Array.isArray(content) && content.length === 0);
  if (b.is_error === true && empty)
    invalid('tool_result', `${loc}.tool_result: content cannot be empty if is_error is true`);
  if (content === undefined || typeof content === 'string') return;
  if (!Array.isArray(content))
    invalid('tool_result', `${loc}.tool_result.content: Input should be a valid string or a valid list`);
  content.forEach((inner: unknown, i) => {
    const at = `${loc}.tool_result.content.${i}`;
    if (!isObject(inner)) invalid('block_type', `${at}: Input should be a valid dictionary`);
    const allowed = ['text', 'image', 'document', 'search_result'];
    if (typeof inner.type !== 'string' || !allowed.includes(inner.type)) tagError(at, inner.type, allowed);
    if (inner.type === 'text') {
      noExtraKeys(inner, FIELDS.text, `${at}.text`);
      checkText(inner.text, at);
    } else if (inner.type === 'image') checkImage(inner.source, `${at}.image.source`);
    else if (inner.type === 'document') checkDocument(inner.source, `${at}.document.source`);
    checkCacheControl(inner.cache_control, `${at}.${inner.type}`);
  });
}

function checkImage(source: unknown, loc: string): void {
  if (!isObject(source)) invalid('image', `${loc}: Field required`);
  if (source.type === 'base64') {
    if (typeof source.media_type !== 'string' || !IMAGE_MEDIA.includes(source.media_type)) {
      invalid(
        'image',
        `${loc}.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`,
      );
    }
    const data = requireString(source.data, `${loc}.base64.data`, 'image');
    const actual = formatOf(data);
    if (actual !== undefined && actual !== source.media_type)
      invalid('image', `${loc}: Image does not match the provided media type ${String(source.media_type)}`);
  } else if (source.type === 'url') requireString(source.url, `${loc}.url.url`, 'image');
  else if (source.type === 'file') requireString(source.file_id, `${loc}.file.file_id`, 'image');
  else tagError(loc, source.type, ['base64', 'url', 'file']);
}

/** The format base64 image data is in by its signature bytes, as the API checks it; undefined when unknown. */
function formatOf(base64: string): string | undefined {
  const head = Buffer.from(base64.slice(0, 24), 'base64');
  if (head[0] === 0x89 && head.subarray(1, 4).toString('latin1') === 'PNG') return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'image/webp';
  return undefined;
}

function checkDocument(source: unknown, loc: string): void {
  if (!isObject(source)) invalid('document', `${loc}: Field required`);
  switch (source.type) {
    case 'base64':
      if (source.media_type !== 'application/pdf')
        invalid('document', `${loc}.base64.media_type: Input should be 'application/pdf'`);
      requireString(source.data, `${loc}.base64.data`, 'document');
      return;
    case 'text':
      if (source.media_type !== 'text/plain')
        invalid('document', `${loc}.text.media_type: Input should be 'text/plain'`);
      requireString(source.data, `${loc}.text.data`, 'document');
      return;
    case 'content':
      if (typeof source.content !== 'string' && !Array.isArray(source.content))
        invalid('document', `${loc}.content.content: Input should be a valid string or a valid list`);
      return;
    case 'url':
      requireString(source.url, `${loc}.url.url`, 'document');
      return;
    case 'file':
      requireString(source.file_id, `${loc}.file.file_id`, 'document');
      return;
    default:
      tagError(loc, source.type, ['base64', 'text', 'content', 'url', 'file']);
  }
}
