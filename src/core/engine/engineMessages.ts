/**
 * The border between the pipeline's messages and a context engine's plain data
 * (api/context-pipeline.d.ts): our messages go out as the Messages API's `MessageParam`s (deep
 * copies: an engine cannot change what the session holds), and what an engine returns comes
 * back as messages — a message identical to one it was given is that message (same id, same
 * block metadata: pins, cache memory and the ledger keep working), anything else is made anew
 * with an id derived from its content (the same content gets the same id on the next request,
 * so the cache breakpoint memory recognises it). Shapes are checked at the border; anything
 * that is not a message the API takes is an error value naming what was wrong. Pure.
 */
import * as v from 'valibot';
import type { EngineMessage } from '../../../api/context-pipeline';
import type { Block, BlockMeta, ImageMediaType, Message, ToolResultContent } from '../conversation/conversationModel';
import { serializeMessage } from '../pipeline/serialize';

/** Our messages as an engine sees them, and the way back to ours for whatever it returns unchanged. */
export interface EngineView {
  readonly messages: readonly EngineMessage[];
  readonly originals: ReadonlyMap<string, Message>;
}

/** `messages` as plain `MessageParam` copies, each keyed by its JSON to the message it came from. */
export function toEngineView(messages: readonly Message[]): EngineView {
  const originals = new Map<string, Message>();
  const out: EngineMessage[] = [];
  for (const m of messages) {
    const json = JSON.stringify(serializeMessage(m));
    if (!originals.has(json)) originals.set(json, m);
    out.push(JSON.parse(json) as EngineMessage);
  }
  return { messages: out, originals };
}

const Block = v.looseObject({ type: v.string() });
const EngineMessageSchema = v.object({
  role: v.picklist(['user', 'assistant']),
  content: v.union([v.string(), v.array(Block)]),
});
const Messages = v.array(EngineMessageSchema);

/** The outcome of reading an engine's messages. */
export type FromEngine =
  { readonly ok: true; readonly messages: Message[] } | { readonly ok: false; readonly reason: string };

/** What an engine returned, as our messages (see the module comment); `createdAt` stamps new blocks. */
export function fromEngineMessages(returned: unknown, view: EngineView, createdAt: number): FromEngine {
  const parsed = v.safeParse(Messages, returned);
  if (!parsed.success)
    return { ok: false, reason: `it returned something that is not a list of messages (${issueText(parsed.issues)})` };
  const out: Message[] = [];
  const used = new Set<string>();
  let turn = 0;
  for (const [i, param] of parsed.output.entries()) {
    const json = JSON.stringify(param);
    const original = view.originals.get(json);
    if (original) {
      turn = original.turn;
      out.push(original);
      continue;
    }
    // The same content twice in one answer still gets two ids.
    let id = `eng-${hash(json)}`;
    for (let n = 2; used.has(id); n++) id = `eng-${hash(json)}-${n}`;
    used.add(id);
    const blocks = typeof param.content === 'string' ? [{ type: 'text', text: param.content }] : param.content;
    const made: Block[] = [];
    for (const [k, b] of blocks.entries()) {
      const block = blockFrom(b, { id: `${id}-${k}`, createdAt });
      if (typeof block === 'string') return { ok: false, reason: `message ${i + 1}, block ${k + 1}: ${block}` };
      made.push(block);
    }
    out.push({ id, role: param.role, blocks: made, turn });
  }
  return { ok: true, messages: out };
}

const MEDIA: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** One block an engine wrote, or why it is not one the pipeline can send. */
function blockFrom(b: Readonly<Record<string, unknown>>, at: { id: string; createdAt: number }): Block | string {
  const meta = (toolUseId?: string): BlockMeta => ({
    id: at.id,
    // Written by a third party: external content, like a tool's.
    tier: 3,
    source: 'compactor',
    createdAt: at.createdAt,
    pinned: false,
    compactable: true,
    ...(toolUseId ? { toolUseId } : {}),
  });
  const str = (k: string) => (typeof b[k] === 'string' ? (b[k] as string) : undefined);
  switch (b.type) {
    case 'text': {
      const text = str('text');
      return text === undefined ? 'a text block without text' : { type: 'text', text, meta: meta() };
    }
    case 'tool_use': {
      const id = str('id');
      const name = str('name');
      if (!id || !name) return 'a tool_use block without its id or name';
      return { type: 'tool_use', id, name, input: b.input ?? {}, meta: meta(id) };
    }
    case 'tool_result': {
      const toolUseId = str('tool_use_id');
      if (!toolUseId) return 'a tool_result block without tool_use_id';
      const content = resultContent(b.content);
      if (typeof content === 'object' && 'error' in content) return content.error;
      return {
        type: 'tool_result',
        toolUseId,
        content,
        ...(b.is_error === true ? { isError: true } : {}),
        meta: meta(toolUseId),
      };
    }
    case 'image': {
      const img = imageOf(b.source);
      return img ? { type: 'image', ...img, meta: meta() } : 'an image that is not base64 png, jpeg, gif or webp';
    }
    case 'thinking': {
      const thinking = str('thinking');
      const signature = str('signature');
      if (thinking === undefined || !signature) return 'a thinking block without its text or signature';
      return { type: 'thinking', thinking, signature, meta: meta() };
    }
    case 'redacted_thinking': {
      const data = str('data');
      return data
        ? { type: 'thinking', thinking: '', redactedData: data, meta: meta() }
        : 'a redacted_thinking block without data';
    }
    default:
      return `a block of type "${String(b.type)}", which an engine may not write (text, image, tool_use, tool_result, thinking only)`;
  }
}

function resultContent(c: unknown): ToolResultContent | { error: string } {
  if (c === undefined) return '';
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return { error: 'a tool_result whose content is neither text nor a list of blocks' };
  const parts: Array<
    { readonly type: 'text'; readonly text: string } | { type: 'image'; mediaType: ImageMediaType; data: string }
  > = [];
  for (const p of c as unknown[]) {
    const part = p as Record<string, unknown> | null;
    if (part?.type === 'text' && typeof part.text === 'string') parts.push({ type: 'text', text: part.text });
    else if (part?.type === 'image') {
      const img = imageOf(part.source);
      if (!img) return { error: 'a tool_result image that is not base64 png, jpeg, gif or webp' };
      parts.push({ type: 'image', ...img });
    } else return { error: 'a tool_result part that is neither text nor image' };
  }
  return parts;
}

function imageOf(source: unknown): { mediaType: ImageMediaType; data: string } | undefined {
  const s = source as Record<string, unknown> | null | undefined;
  if (s?.type !== 'base64' || typeof s.data !== 'string' || typeof s.media_type !== 'string') return undefined;
  return MEDIA.has(s.media_type) ? { mediaType: s.media_type as ImageMediaType, data: s.data } : undefined;
}

function issueText(issues: readonly v.BaseIssue<unknown>[]): string {
  const first = issues[0];
  if (!first) return 'no detail';
  const path = first.path?.map((p) => String(p.key)).join('.') ?? '';
  return path ? `${path}: ${first.message}` : first.message;
}

/** A short, stable hash of a string (FNV-1a, 32 bits, in base 36): ids, not security. */
function hash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}
