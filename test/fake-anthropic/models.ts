/**
 * The models the fake server answers as: its own scripted test model `fake-claude` and every
 * `claude-…` id (real ids, dated ids and aliases alike). Per model it knows the minimum
 * cacheable prompt length and the maximum `max_tokens`, as documented by Anthropic.
 */

/** The id of the scripted test model (any `claude-…` id is accepted too). */
export const FAKE_MODEL = 'fake-claude';

/** The context window (tokens) the server enforces unless configured otherwise. */
export const DEFAULT_WINDOW = 200_000;

/** Whether the server answers as `model` (otherwise it answers 404 `not_found_error`). */
export function isKnownModel(model: string): boolean {
  return model === FAKE_MODEL || /^claude-[a-z0-9][a-z0-9.@-]*$/.test(model);
}

/**
 * Minimum number of prompt tokens a cache breakpoint must cover for the prefix to be cached:
 * 4096 for Claude Opus 4.5+ and Haiku 4.5, 2048 for Haiku 3 / 3.5, 1024 for the other
 * Claude Sonnet / Opus models and for `fake-claude`.
 */
export function minCacheableTokens(model: string): number {
  const m = model.toLowerCase();
  if (/^claude-haiku-4-5/.test(m) || /^claude-opus-4-([5-9]|\d\d)/.test(m) || /^claude-opus-[5-9]/.test(m)) return 4096;
  if (/^claude-3-5-haiku|^claude-3-haiku/.test(m)) return 2048;
  return 1024;
}

/** Largest `max_tokens` the model accepts. */
export function maxOutputTokens(model: string): number {
  const m = model.toLowerCase();
  if (/^claude-3-haiku/.test(m)) return 4096;
  if (/^claude-3-5-haiku|^claude-3-5-sonnet/.test(m)) return 8192;
  if (/^claude-opus-4-1|^claude-opus-4(-\d{8})?$|^claude-opus-4-0/.test(m)) return 32_000;
  if (/^claude-(sonnet-4|haiku-4-5|opus-4-5|3-7-sonnet)/.test(m) || m === FAKE_MODEL) return 64_000;
  return 128_000;
}

/**
 * Whether `model` refuses a request ending with an assistant message: prefill was removed
 * in Claude 4.6 (Opus 4.6, Sonnet 4.6) and later models. The test model `fake-claude` and
 * older models accept it.
 */
export function refusesPrefill(model: string): boolean {
  const m = model.toLowerCase();
  return (
    /^claude-(opus|sonnet|haiku)-4-([6-9]|[1-9]\d)(?!\d)/.test(m) ||
    /^claude-(opus|sonnet|haiku)-([5-9]|[1-9]\d)(?!\d)/.test(m)
  );
}

/**
 * Whether `model` accepts a compaction request (`compaction: {type: 'summarize'}`): the
 * "supported models" of https://platform.claude.com/docs/en/build-with-claude/compaction-keep-recent-turns
 * (Opus 4.6 and Sonnet 4.6, Opus 4.7 / 4.8, the 5 family's listed models) and `fake-claude`.
 */
export function supportsOnDemandCompaction(model: string): boolean {
  const m = model.toLowerCase();
  return (
    m === FAKE_MODEL ||
    /^claude-(opus-4-[678]|sonnet-4-6|haiku-5-5|sonnet-5(-5)?|opus-5(-5)?|mythos-5(-1)?|mythos-preview|fable-5(-1)?)(-\d{8})?$/.test(
      m,
    )
  );
}
