/** Cache breakpoints for the lifetime tests, and the lifetimes a request sent. */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { CacheAnchor } from '../../../src/core/cache/cacheAnchors';

/** An anchor at `target` covering `prefixTokens`, hit 9 times in 10. */
export const anchor = (target: CacheAnchor['target'], prefixTokens: number): CacheAnchor => ({
  target,
  prefixTokens,
  hitProbability: 0.9,
  score: prefixTokens * 0.9,
  reason: 'r',
});

/** The stable prefix: 8k tokens of tools, then the system prompt up to 15k. */
export const STABLE: readonly CacheAnchor[] = [anchor({ at: 'tools' }, 8_000), anchor({ at: 'system' }, 15_000)];

/** The tail breakpoint on message `messageIndex`, the prompt `prefixTokens` long up to it. */
export const tail = (prefixTokens: number, messageIndex = 9): CacheAnchor =>
  anchor({ at: 'message', messageIndex }, prefixTokens);

/** The lifetime of each cache breakpoint of a request, in prompt order (no ttl: 5 minutes). */
export function ttlsOf(params: MessageCreateParamsNonStreaming): string[] {
  const out: string[] = [];
  const visit = (b: object) => {
    const cc = 'cache_control' in b ? (b.cache_control as { ttl?: string } | null | undefined) : undefined;
    if (cc) out.push(cc.ttl ?? '5m');
  };
  for (const s of Array.isArray(params.system) ? params.system : []) visit(s);
  for (const m of params.messages) if (typeof m.content !== 'string') for (const b of m.content) visit(b);
  return out;
}
