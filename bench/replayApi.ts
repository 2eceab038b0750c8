/**
 * The API side of a replay: every request (main or summariser) is validated as the fake
 * server validates it (test/fake-anthropic/validateRequest.ts) — a refusal is counted by
 * reason — and a valid one goes through ONE simulated prompt cache (the fake server's
 * PromptCache, keyed by model, so a summariser of another model never hits the main prefix)
 * on the replay's calibrated token counts instead of the fake tokenizer's.
 */
import type { ContentBlockParam, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { minCacheableTokens } from '../test/fake-anthropic/models';
import { PromptCache } from '../test/fake-anthropic/promptCache';
import { layoutPrompt } from '../test/fake-anthropic/promptLayout';
import { RejectionError } from '../test/fake-anthropic/reject';
import { blocksOf, type ApiRequest } from '../test/fake-anthropic/request';
import { validateRequest } from '../test/fake-anthropic/validateRequest';
import {
  checkContextManagement,
  clearCandidates,
  CLEARED_PLACEHOLDER,
  type Edit,
} from '../test/fake-anthropic/contextManagement';
import type { ServerRequestParts } from '../src/core/server/serverContext';
import { checkCompaction } from '../test/fake-anthropic/compactionRequest';

/** How the cache split a request's prompt tokens. */
export interface CacheSplit {
  readonly input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation_input_tokens: number;
  /** The writes by lifetime, as the API reports them. */
  readonly cache_creation: { readonly ephemeral_5m_input_tokens: number; readonly ephemeral_1h_input_tokens: number };
}

/** What the API's `clear_tool_uses` did to a request (its `applied_edits`, on calibrated counts). */
export interface ServerClear {
  /** Prompt tokens the clear freed. */
  readonly tokens: number;
  /** Tool results cleared. */
  readonly toolUses: number;
  /** Their `tool_use_id`s, so the replay can tell what the model no longer saw. */
  readonly toolUseIds: readonly string[];
}

/** What the API made of a request: its cache split (and a server clear), or the reason it refused it. */
export type ApiOutcome =
  | { readonly ok: true; readonly split: CacheSplit; readonly cleared?: ServerClear; readonly promptTokens: number }
  | { readonly ok: false; readonly reason: string };

/** A refusal as a reason without positions (`messages.N.content.N: …`), so equal faults count together. */
export function rejectionReason(err: unknown): string {
  if (!(err instanceof RejectionError)) throw err;
  return `${err.rejection.rule}: ${err.rejection.message.replace(/\d+/g, 'N')}`;
}

/** The fake API of one replay: validation counted by reason, and the shared prompt cache. */
export class ReplayApi {
  /** The one simulated prompt cache of the replay (the fake server's). */
  readonly cache: PromptCache;
  /** Refused requests by reason. */
  readonly invalid = new Map<string, number>();
  /** Tokens of each block key of the last main request, so a request sharing its prefix counts it alike. */
  private lastMain = new Map<string, number>();

  /** `now`: the replay's clock; `textTokens`: calibrated tokens of a text (for blocks no main request had). */
  constructor(
    now: () => number,
    private readonly textTokens: (text: string) => number,
  ) {
    this.cache = new PromptCache(now);
  }

  /** The real session had a full cache miss here: forget every cached prefix. */
  flush(): void {
    this.cache.clear();
  }

  /** Counts a request refused before it reached the API's validation (e.g. a server strategy the model lacks). */
  refuse(reason: string): ApiOutcome {
    this.invalid.set(reason, (this.invalid.get(reason) ?? 0) + 1);
    return { ok: false, reason };
  }

  /** Total refusals. */
  invalidCount(): number {
    let n = 0;
    for (const c of this.invalid.values()) n += c;
    return n;
  }

  /**
   * A main request whose blocks (in layout order: tools, system, message blocks) cost
   * `blockTokens`; `overhead` (the system prompt and tools the transcript does not hold) is
   * added to the first block. Blocks without a count (the serializer added one) are counted from
   * their text. With `server` (a server strategy's `context_management` and betas), the edits
   * are validated as the fake server does, and `clear_tool_uses` is applied as the API applies
   * it: when the prompt reaches the trigger, every tool result but the last `keep` becomes the
   * placeholder (unless less than `clear_at_least` would go), and the cache sees the edited
   * prompt — its prefix changes at the first cleared result, so everything after it is written
   * again. With `sharedPrefix`, the tools and system prompt are a prefix other sessions keep
   * warm (Claude Code's, read by all its users): they are cached whatever the gap.
   */
  sendMain(
    params: MessageCreateParamsNonStreaming,
    blockTokens: readonly number[],
    overhead: number,
    server?: ServerRequestParts,
    sharedPrefix = false,
  ): ApiOutcome {
    const v = this.validate(params);
    if (!v.ok) return v;
    const req = v.req;
    const layout = layoutPrompt(req, { count: false });
    const texts = layout.blocks.length === blockTokens.length ? undefined : requestBlockTexts(req);
    const memo = new Map<string, number>();
    const blocks = layout.blocks.map((b, i) => {
      const tokens =
        (blockTokens.length === layout.blocks.length ? (blockTokens[i] as number) : this.textTokens(texts?.[i] ?? '')) +
        (i === 0 ? overhead : 0);
      memo.set(b.key, tokens);
      return { ...b, tokens };
    });
    this.lastMain = memo;
    if (sharedPrefix) {
      // Other sessions of the same client read its tools and system prompt all the time: that prefix is always warm.
      const stable = layout.blocks.filter((b) => !b.loc.startsWith('messages')).length;
      this.cache.keepWarm(req.model, layout, stable, '5m');
    }
    const promptTokens = blocks.reduce((n, b) => n + b.tokens, 0);
    // The history's compaction blocks are checked against the betas sent, server strategy or not.
    const edits = this.serverEdits(params, server ?? { betas: [] });
    if (!edits.ok) return edits;
    const clear = edits.edits.find(
      (e): e is Extract<Edit, { type: 'clear_tool_uses_20250919' }> => e.type === 'clear_tool_uses_20250919',
    );
    if (clear && promptTokens >= clear.trigger) {
      const c = clearCandidates(req, clear);
      if (c.locs.length > 0) {
        const cleared = new Set(c.locs);
        const placeholder = this.textTokens(CLEARED_PLACEHOLDER);
        const edited = layoutPrompt(c.req, { count: false }).blocks.map((b, i) => ({
          ...b,
          tokens: cleared.has(b.loc) ? placeholder : (blocks[i]?.tokens ?? 0),
        }));
        const freed = promptTokens - edited.reduce((n, b) => n + b.tokens, 0);
        if (freed >= clear.clearAtLeast) {
          for (const b of edited) memo.set(b.key, b.tokens);
          return {
            ok: true,
            split: this.process(req.model, edited),
            cleared: { tokens: freed, toolUses: c.locs.length, toolUseIds: c.toolUseIds },
            promptTokens: promptTokens - freed,
          };
        }
      }
    }
    return { ok: true, split: this.process(req.model, blocks), promptTokens };
  }

  /**
   * The server edits of a request and its compaction blocks, validated with its beta headers
   * (contextManagement.ts, compactionRequest.ts); a refusal is counted like any other.
   */
  private serverEdits(
    params: MessageCreateParamsNonStreaming,
    server: ServerRequestParts,
  ): { readonly ok: true; readonly edits: readonly Edit[] } | { readonly ok: false; readonly reason: string } {
    try {
      const body = { ...params, context_management: server.contextManagement } as unknown as Record<string, unknown>;
      checkCompaction(body, server.betas.join(','));
      return { ok: true, edits: checkContextManagement(body, server.betas.join(',')) };
    } catch (err) {
      const reason = rejectionReason(err);
      this.invalid.set(reason, (this.invalid.get(reason) ?? 0) + 1);
      return { ok: false, reason };
    }
  }

  /**
   * A side request (the summariser's): blocks that the last main request had are counted as
   * there (so an identical prefix costs the same and reads from the same cache entries), the
   * others from their text.
   */
  sendSide(params: MessageCreateParamsNonStreaming): ApiOutcome {
    const v = this.validate(params);
    if (!v.ok) return v;
    const req = v.req;
    const layout = layoutPrompt(req, { count: false });
    const texts = requestBlockTexts(req);
    const blocks = layout.blocks.map((b, i) => ({
      ...b,
      tokens: this.lastMain.get(b.key) ?? this.textTokens(texts[i] ?? ''),
    }));
    return { ok: true, split: this.process(req.model, blocks), promptTokens: blocks.reduce((n, b) => n + b.tokens, 0) };
  }

  /**
   * Validates the request as sent: its wire form (JSON: undefined fields are not sent) decides.
   * The object itself is validated first, which spares the JSON round trip of a whole history
   * per request (the replay's main cost): the validators treat an undefined field as absent and
   * refuse non-JSON values, so an object that passes has a wire form that passes; an object
   * that fails is judged again on its wire form, and that verdict (and reason) counts.
   */
  private validate(
    params: MessageCreateParamsNonStreaming,
  ): { readonly ok: true; readonly req: ApiRequest } | { readonly ok: false; readonly reason: string } {
    try {
      return { ok: true, req: validateRequest(params, 'messages') };
    } catch (direct) {
      rejectionReason(direct);
      try {
        return { ok: true, req: validateRequest(JSON.parse(JSON.stringify(params)), 'messages') };
      } catch (err) {
        const reason = rejectionReason(err);
        this.invalid.set(reason, (this.invalid.get(reason) ?? 0) + 1);
        return { ok: false, reason };
      }
    }
  }

  private process(model: string, blocks: ReturnType<typeof layoutPrompt>['blocks']): CacheSplit {
    const u = this.cache.process(
      model,
      { blocks, totalTokens: blocks.reduce((n, b) => n + b.tokens, 0) },
      minCacheableTokens(model),
    );
    return {
      input_tokens: u.input_tokens,
      cache_read_input_tokens: u.cache_read_input_tokens,
      cache_creation_input_tokens: u.cache_creation_input_tokens,
      cache_creation: u.cache_creation,
    };
  }
}

/** The text of each prompt block of a request, in layoutPrompt's order (tools, system, message blocks). */
export function requestBlockTexts(req: ApiRequest): string[] {
  const out: string[] = [];
  for (const t of req.tools ?? []) out.push(JSON.stringify(t));
  if (typeof req.system === 'string') {
    if (req.system) out.push(req.system);
  } else for (const b of req.system ?? []) out.push(b.text);
  for (const m of req.messages) for (const b of blocksOf(m)) out.push(blockText(b));
  return out;
}

function blockText(b: ContentBlockParam): string {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'thinking':
      return b.thinking;
    case 'tool_use':
      return `${b.name}\n${JSON.stringify(b.input)}`;
    case 'tool_result':
      return typeof b.content === 'string'
        ? b.content
        : (b.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('\n');
    default:
      return '';
  }
}
