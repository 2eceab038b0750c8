/**
 * What the model sees, as an ordered list of prompt blocks (each tool, each system block,
 * each content block of each message) with the tokens each costs under the fake tokenizer
 * and a key for prefix hashing (the block without its `cache_control`, so moving a breakpoint
 * does not change the prompt). Fixed overheads are attributed to the block they precede, so
 * any prefix has a well-defined token count.
 */
import type { ContentBlockParam, TextBlockParam, ToolUnion } from '@anthropic-ai/sdk/resources/messages';
import { ttlOf, type CacheTtl } from './cacheControl';
import { imageTokensForBase64, UNKNOWN_IMAGE_TOKENS } from './imageTokens';
import { blocksOf, type ApiRequest } from './request';
import { countTokens } from './tokenizer';
import { deferredTools } from './toolSearch';

/** Tokens of every request (the prompt's frame), attributed to the first block. */
export const REQUEST_OVERHEAD = 7;
/** Tokens of the tool-use system prompt the API adds when tools are present (Claude 4, tool_choice auto). */
export const TOOLS_PREAMBLE = 346;
/** Tokens per tool definition besides its name, description and schema. */
export const PER_TOOL = 5;
/** Tokens per message (role marker), attributed to its first block. */
export const PER_MESSAGE = 4;
/** Tokens of the wrapper of a tool_use / tool_result block. */
export const PER_TOOL_BLOCK = 8;
/** Tokens of the wrapper of an image or document block. */
export const PER_MEDIA_BLOCK = 3;

/** One block of the prompt. */
export interface PromptBlock {
  /** Where it is in the request, e.g. `tools.0`, `system.1`, `messages.3.content.0`. */
  readonly loc: string;
  /** Canonical text for prefix hashing. */
  readonly key: string;
  /** Tokens, overheads included. */
  readonly tokens: number;
  /** The TTL of a `cache_control` breakpoint on this block (or inside it, for tool results). */
  readonly breakpoint?: CacheTtl;
  /** Whether a breakpoint may sit here (not on thinking blocks). */
  readonly cacheable: boolean;
}

/** The prompt as blocks, with the total. */
export interface PromptLayout {
  readonly blocks: readonly PromptBlock[];
  readonly totalTokens: number;
}

function withoutCacheControl(obj: object): string {
  return JSON.stringify(obj, (key, value: unknown) => (key === 'cache_control' ? undefined : value));
}

/**
 * Lays a validated request out as prompt blocks. `opts.count: false` skips the token count
 * (every block's `tokens` is 0): for callers that count the blocks themselves, e.g. the replay
 * bench, which puts its calibrated counts on the same keys and breakpoints.
 */
export function layoutPrompt(req: ApiRequest, opts: { readonly count?: boolean } = {}): PromptLayout {
  const count = opts.count !== false;
  const blocks: PromptBlock[] = [];
  const push = (loc: string, key: string, tokens: () => number, source: object, cacheable = true): void => {
    const breakpoint = cacheable ? (ttlOf(source) ?? innerBreakpoint(source)) : undefined;
    blocks.push({ loc, key, tokens: count ? tokens() : 0, cacheable, ...(breakpoint ? { breakpoint } : {}) });
  };
  // A deferred tool is not in the prompt until a tool search references it (toolSearch.ts).
  (req.tools ?? []).forEach((t, i) =>
    push(
      `tools.${i}`,
      `tool:${withoutCacheControl(t)}`,
      () =>
        ((t as { defer_loading?: unknown }).defer_loading === true ? 0 : toolTokens(t)) +
        (i === 0 ? TOOLS_PREAMBLE : 0),
      t,
    ),
  );
  const deferred = new Map(deferredTools(req).map((t) => [String(t.name), t as unknown as ToolUnion]));
  const system: readonly TextBlockParam[] =
    typeof req.system === 'string' ? (req.system ? [{ type: 'text', text: req.system }] : []) : (req.system ?? []);
  system.forEach((b, i) => push(`system.${i}`, `system:${withoutCacheControl(b)}`, () => countTokens(b.text), b));
  const salt = JSON.stringify({ tool_choice: req.tool_choice ?? null, thinking: req.thinking ?? null });
  req.messages.forEach((m, i) => {
    blocksOf(m).forEach((b, j) => {
      const head = j === 0 ? PER_MESSAGE : 0;
      const key = `${i === 0 && j === 0 ? salt : ''}${m.role}:${j}:${withoutCacheControl(b)}`;
      push(
        `messages.${i}.content.${j}`,
        key,
        () => blockTokens(b) + head + referencedTokens(b, deferred),
        b,
        b.type !== 'thinking' && b.type !== 'redacted_thinking',
      );
    });
  });
  const first = blocks[0];
  if (first && count) blocks[0] = { ...first, tokens: first.tokens + REQUEST_OVERHEAD };
  applyAutomaticBreakpoint(req, blocks);
  return { blocks, totalTokens: blocks.reduce((n, b) => n + b.tokens, 0) };
}

/** What a tool search result adds to the prompt: the definitions of the deferred tools it references. */
function referencedTokens(b: object, deferred: ReadonlyMap<string, ToolUnion>): number {
  const r = b as { type?: unknown; content?: { tool_references?: unknown } };
  if (r.type !== 'tool_search_tool_result' || !Array.isArray(r.content?.tool_references)) return 0;
  let n = 0;
  for (const ref of r.content.tool_references as { tool_name?: unknown }[]) {
    const tool = deferred.get(String(ref.tool_name));
    if (tool) n += toolTokens(tool);
  }
  return n;
}

function innerBreakpoint(source: object): CacheTtl | undefined {
  const b = source as { type?: unknown; content?: unknown };
  if (b.type !== 'tool_result' || !Array.isArray(b.content)) return undefined;
  for (const inner of b.content as object[]) {
    const ttl = ttlOf(inner);
    if (ttl) return ttl;
  }
  return undefined;
}

/** Top-level `cache_control`: a breakpoint on the last cacheable block. */
function applyAutomaticBreakpoint(req: ApiRequest, blocks: PromptBlock[]): void {
  if (!req.cache_control) return;
  const ttl = ttlOf(req) ?? '5m';
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i];
    if (b?.cacheable) {
      if (!b.breakpoint) blocks[i] = { ...b, breakpoint: ttl };
      return;
    }
  }
}

/** A tool definition costs its JSON (name, description, schema) plus a small frame. */
function toolTokens(t: ToolUnion): number {
  return PER_TOOL + countTokens(withoutCacheControl(t));
}

type Inner = Exclude<Extract<ContentBlockParam, { type: 'tool_result' }>['content'], string | undefined>[number];

/** Tokens of one content block. */
export function blockTokens(b: ContentBlockParam | Inner): number {
  switch (b.type) {
    case 'text':
      return countTokens(b.text);
    case 'image':
      return (
        PER_MEDIA_BLOCK + (b.source.type === 'base64' ? imageTokensForBase64(b.source.data) : UNKNOWN_IMAGE_TOKENS)
      );
    case 'tool_use':
      return PER_TOOL_BLOCK + countTokens(b.name) + countTokens(JSON.stringify(b.input));
    case 'tool_result': {
      const c = b.content;
      const inner =
        c === undefined ? 0 : typeof c === 'string' ? countTokens(c) : c.reduce((n, x) => n + blockTokens(x), 0);
      return PER_TOOL_BLOCK + inner;
    }
    case 'thinking':
      return countTokens(b.thinking);
    case 'redacted_thinking':
      return Math.ceil(b.data.length / 4);
    case 'document':
      return PER_MEDIA_BLOCK + documentTokens(b.source) + countTokens(`${b.title ?? ''} ${b.context ?? ''}`);
    default:
      return countTokens(JSON.stringify(b));
  }
}

function documentTokens(source: Extract<ContentBlockParam, { type: 'document' }>['source']): number {
  switch (source.type) {
    case 'text':
      return countTokens(source.data);
    case 'base64':
      return Math.ceil((source.data.length * 3) / 4 / 4);
    case 'content':
      return typeof source.content === 'string'
        ? countTokens(source.content)
        : source.content.reduce((n, x) => n + blockTokens(x), 0);
    default:
      return UNKNOWN_IMAGE_TOKENS;
  }
}
