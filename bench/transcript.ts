/**
 * Reads a transcript (JSONL, format in ../shared/fixtures/README.md) into core `Message`s
 * and usage events, in file order. Tolerates the warts of real data (adjacent messages of
 * one role, thinking without signature, empty text) and stands in for valid blocks the core
 * model cannot carry (blockStandIn.ts); rejects a malformed record with an error naming the line.
 */
import { readFileSync } from 'node:fs';
import type {
  Block,
  BlockMeta,
  ImageMediaType,
  Message,
  Role,
  SummaryBlock,
  Tier,
  ToolResultContent,
} from '../src/core/conversation/conversationModel';
import { counterIds } from '../src/core/platform/platformPorts';
import { standInText, type StandIns } from './blockStandIn';
import { canonicalModelId } from '../src/core/models/modelIds';

/** Usage as the transcript records it; absent cache fields read as 0. */
export interface TranscriptUsage {
  readonly input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly output_tokens: number;
}

/** One event of a transcript; `line` is 1-based. */
export type TranscriptEvent =
  | { readonly kind: 'message'; readonly line: number; readonly message: Message }
  /**
   * Usage of the request that produced the next assistant message; `null`: not an Anthropic
   * model. `at`: when the response came (ms since the epoch), absent in older files.
   */
  | {
      readonly kind: 'usage';
      readonly line: number;
      readonly model: string;
      readonly usage: TranscriptUsage | null;
      readonly at?: number;
    }
  /** The original agent compacted here; `message` is its summary as a user message. */
  | {
      readonly kind: 'compaction';
      readonly line: number;
      readonly summary: string;
      readonly tokensBefore: number;
      readonly message: Message;
    };

type Json = Record<string, unknown>;

class LineError extends Error {}

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function str(o: Json, key: string, where: string): string {
  const v = o[key];
  if (typeof v !== 'string') throw new LineError(`${where}: "${key}" must be a string`);
  return v;
}
function num(o: Json, key: string, where: string, optional = false): number {
  const v = o[key];
  if (optional && (v === undefined || v === null)) return 0;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new LineError(`${where}: "${key}" must be a non-negative number`);
  return v;
}

/** The optional `at` of a usage record: an ISO-8601 time with a date and a time of day, as ms since the epoch. */
function at(o: Json): number | undefined {
  const v = o.at;
  if (v === undefined || v === null) return undefined;
  const ms = typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v) ? Date.parse(v) : Number.NaN;
  if (!Number.isFinite(ms))
    throw new LineError(`"at" must be an ISO-8601 time such as "2026-01-31T12:00:00Z", got ${JSON.stringify(v)}`);
  return ms;
}

const MEDIA_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** How a stood-in image is counted: by its source type (`url`, `file`) or, for base64, its media type. */
function imageKind(o: Json): string {
  const src = isObj(o.source) ? o.source : {};
  const what = src.type === 'base64' ? src.media_type : `${String(src.type)} source`;
  return `image (${typeof what === 'string' ? what : 'unknown'})`;
}

/** A base64 image of a type the API takes, or undefined for any other source (a URL, a file id) or type. */
function image(o: Json, where: string): { mediaType: ImageMediaType; data: string } | undefined {
  const src = o.source;
  if (!isObj(src) || src.type !== 'base64') return undefined;
  const mediaType = str(src, 'media_type', where);
  if (!MEDIA_TYPES.includes(mediaType)) return undefined;
  return { mediaType: mediaType as ImageMediaType, data: str(src, 'data', where) };
}

/**
 * Parses transcript text. `source` names the file in errors. Throws `Error("<source>:<line>: …")`
 * for a line that is not a valid record. A valid block the core model cannot carry (see
 * blockStandIn.ts) becomes a text stand-in, counted by type in `standIns` when given; a
 * `redacted_thinking` block is a thinking block with its `data`. Read past, and counted in
 * `ignored` when given, so a session we have not seen still replays: a record of a kind this
 * format does not define (a later version's, a tool's header), and a last line that is not
 * valid JSON (a log cut off mid-write). Anywhere else, invalid JSON is an error. A usage record
 * of no request (Claude Code's `<synthetic>` model, or no prompt tokens at all) reads as
 * `usage: null`, counted there too.
 */
export function parseTranscript(
  text: string,
  source = 'transcript',
  standIns?: StandIns,
  ignored?: IgnoredRecords,
): TranscriptEvent[] {
  const ids = counterIds('t');
  let clock = 0;
  let turn = 0;
  const meta = (tier: Tier, src: BlockMeta['source'], compactable: boolean, toolUseId?: string): BlockMeta => ({
    id: ids.next('blk'),
    tier,
    source: src,
    createdAt: ++clock,
    ...(toolUseId === undefined ? {} : { toolUseId }),
    pinned: false,
    compactable,
  });

  function block(role: Role, b: unknown, where: string): Block {
    if (!isObj(b)) throw new LineError(`${where}: a content block must be an object`);
    const user = role === 'user';
    const tier: Tier = user ? 1 : 2;
    const src = user ? 'user' : 'assistant';
    switch (b.type) {
      case 'text':
        return { type: 'text', text: str(b, 'text', where), meta: meta(tier, src, !user) };
      case 'image': {
        const img = image(b, where);
        if (img) return { type: 'image', ...img, meta: meta(tier, src, !user) };
        return { type: 'text', text: standInText(imageKind(b), b, standIns), meta: meta(tier, src, !user) };
      }
      case 'redacted_thinking':
        return {
          type: 'thinking',
          thinking: '',
          redactedData: str(b, 'data', where),
          meta: meta(2, 'assistant', true),
        };
      case 'thinking': {
        const signature = b.signature;
        if (signature !== undefined && typeof signature !== 'string')
          throw new LineError(`${where}: "signature" must be a string`);
        return {
          type: 'thinking',
          thinking: str(b, 'thinking', where),
          ...(signature ? { signature } : {}),
          meta: meta(2, 'assistant', true),
        };
      }
      case 'tool_use': {
        const id = str(b, 'id', where);
        return {
          type: 'tool_use',
          id,
          name: str(b, 'name', where),
          input: b.input ?? {},
          meta: meta(2, 'assistant', true, id),
        };
      }
      case 'tool_result': {
        const toolUseId = str(b, 'tool_use_id', where);
        const raw = b.content ?? '';
        let content: ToolResultContent;
        if (typeof raw === 'string') content = raw;
        else if (Array.isArray(raw)) {
          content = raw.map((p: unknown, i) => {
            const at = `${where}, part ${i + 1}`;
            if (!isObj(p)) throw new LineError(`${at}: a tool_result part must be an object`);
            if (p.type === 'text') return { type: 'text' as const, text: str(p, 'text', at) };
            const img = p.type === 'image' ? image(p, at) : undefined;
            if (img) return { type: 'image' as const, ...img };
            if (typeof p.type !== 'string') throw new LineError(`${at}: a tool_result part must have a "type"`);
            const kind = p.type === 'image' ? imageKind(p) : p.type;
            return { type: 'text' as const, text: standInText(kind, p, standIns) };
          });
        } else throw new LineError(`${where}: tool_result "content" must be a string or an array`);
        return {
          type: 'tool_result',
          toolUseId,
          content,
          ...(b.is_error === true ? { isError: true } : {}),
          meta: meta(3, 'tool', true, toolUseId),
        };
      }
      default:
        if (typeof b.type !== 'string' || b.type === '') throw new LineError(`${where}: a block must have a "type"`);
        return { type: 'text', text: standInText(b.type, b, standIns), meta: meta(tier, src, !user) };
    }
  }

  function message(m: unknown): Message {
    if (!isObj(m)) throw new LineError('"message" must be an object');
    const role = m.role;
    if (role !== 'user' && role !== 'assistant')
      throw new LineError(`"role" must be "user" or "assistant", got ${JSON.stringify(role)}`);
    const raw = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (!Array.isArray(raw)) throw new LineError('"content" must be a string or an array of blocks');
    const blocks = raw.map((b: unknown, i) => block(role, b, `block ${i + 1}`));
    if (role === 'user' && (turn === 0 || blocks.some((b) => b.type === 'text'))) turn++;
    return { id: ids.next('msg'), role, blocks, turn };
  }

  function summary(text: string): Message {
    const b: SummaryBlock = {
      type: 'summary',
      text,
      compactionId: ids.next('cmp'),
      turnRange: [1, Math.max(1, turn)],
      meta: meta(0, 'compactor', false),
    };
    return { id: ids.next('msg'), role: 'user', blocks: [b], turn };
  }

  const events: TranscriptEvent[] = [];
  const lines = text.split('\n');
  let lastLine = lines.length;
  while (lastLine > 0 && (lines[lastLine - 1] as string).trim() === '') lastLine--;
  const ignore = (what: string) => ignored?.set(what, (ignored.get(what) ?? 0) + 1);
  lines.forEach((l, i) => {
    const line = i + 1;
    if (l.trim() === '') return;
    try {
      let o: unknown;
      try {
        o = JSON.parse(l);
      } catch (e) {
        // A log cut off mid-write (its process ended) leaves a partial last line: the rest is whole.
        if (line === lastLine && line > 1) return void ignore(TRUNCATED_LAST_LINE);
        throw new LineError(`not valid JSON (${(e as Error).message})`);
      }
      if (!isObj(o)) throw new LineError('a line must be a JSON object');
      if (o.kind === 'message') events.push({ kind: 'message', line, message: message(o.message) });
      else if (o.kind === 'usage') {
        const u = o.usage;
        // A session logged through Bedrock, Vertex AI or OpenRouter names the model its platform's way.
        const model = typeof o.model === 'string' ? canonicalModelId(o.model) : '';
        const time = at(o);
        const when = time === undefined ? {} : { at: time };
        if (u === null || u === undefined) events.push({ kind: 'usage', line, model, usage: null, ...when });
        else if (!isObj(u)) throw new LineError('"usage" must be an object or null');
        else {
          const usage: TranscriptUsage = {
            input_tokens: num(u, 'input_tokens', 'usage'),
            cache_read_input_tokens: num(u, 'cache_read_input_tokens', 'usage', true),
            cache_creation_input_tokens: num(u, 'cache_creation_input_tokens', 'usage', true),
            output_tokens: num(u, 'output_tokens', 'usage', true),
          };
          // A reply the agent wrote itself (Claude Code's `<synthetic>` model: an API error, an
          // interruption) or one no prompt went into: no request was sent, as for `null`.
          const none = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens === 0;
          const noRequest = model === SYNTHETIC_MODEL || none;
          if (noRequest) ignore(NO_REQUEST);
          events.push({ kind: 'usage', line, model, usage: noRequest ? null : usage, ...when });
        }
      } else if (o.kind === 'compaction') {
        const s = str(o, 'summary', 'compaction');
        const tokensBefore = typeof o.tokensBefore === 'number' ? o.tokensBefore : 0;
        events.push({ kind: 'compaction', line, summary: s, tokensBefore, message: summary(s) });
      } else if (typeof o.kind === 'string' && o.kind !== '')
        ignore(`record of unknown kind ${JSON.stringify(o.kind)}`);
      else
        throw new LineError(
          `no "kind" (a transcript line is a "message", "usage" or "compaction" record; see test/fixtures/README.md)`,
        );
    } catch (e) {
      if (e instanceof LineError) throw new Error(`${source}:${line}: ${e.message}`, { cause: e });
      throw e;
    }
  });
  return events;
}

/** Why `events` hold nothing to replay (no usage record that is not `null`); undefined when they hold a request. */
export function nothingToReplay(events: readonly TranscriptEvent[], file: string): string | undefined {
  return events.some((e) => e.kind === 'usage' && e.usage !== null)
    ? undefined
    : `${file}: no usage record of a request (nothing to replay)`;
}

/** Lines a replay reads past, by what they were (see parseTranscript), with their counts. */
export type IgnoredRecords = Map<string, number>;

/** The model Claude Code logs for a reply it wrote itself, with no API request behind it. */
export const SYNTHETIC_MODEL = '<synthetic>';

/** What {@link IgnoredRecords} calls a usage record of no request (read as `usage: null`). */
export const NO_REQUEST = 'usage of no request (model <synthetic>, or no prompt tokens), read as null';

/** What {@link IgnoredRecords} calls a last line that is not valid JSON. */
export const TRUNCATED_LAST_LINE = 'last line cut off (not valid JSON)';

/** `ignored` as one line, e.g. `record of unknown kind "meta" ×2`; empty when none. */
export function describeIgnored(ignored: ReadonlyMap<string, number>): string {
  return [...ignored].map(([what, n]) => `${what} ×${n}`).join(', ');
}

/**
 * Reads and parses a transcript file (see `parseTranscript`); stood-in blocks are counted in
 * `standIns`, lines read past in `ignored`.
 */
export function readTranscript(path: string, standIns?: StandIns, ignored?: IgnoredRecords): TranscriptEvent[] {
  return parseTranscript(readFileSync(path, 'utf8'), path, standIns, ignored);
}
