/**
 * Preserved thinking: the models whose API checks every thinking block a request sends back
 * against the prefix it was produced after. Pure.
 *
 * Sources (read 2026-11-25 through the docs index):
 * - https://platform.claude.com/docs/en/build-with-claude/preserved-thinking: "Starting with
 *   Claude Fable 5.1, when a `thinking` or `redacted_thinking` block comes back in a request, the
 *   API checks the block's `signature` … Nothing before the thinking block has changed. The
 *   top-level `system` prompt, `tools`, and `messages` before the block are its prefix. If the
 *   prefix differs from what you sent when the block was produced, that block and every later
 *   thinking block are invalid, and the API rejects the request with a 400 error or drops the
 *   invalid blocks"; the check is enforced by default for accounts created on or after
 *   2026-08-31 (on older ones only when `thinking.block_binding.prefix_mismatch_behavior` is set).
 * - …/preserved-thinking/prefix-checks: supported models `claude-fable-5-2`,
 *   `claude-mythos-5-2`, `claude-fable-5-1`, `claude-mythos-5-1`, `claude-opus-5-5`,
 *   `claude-sonnet-5-5`, `claude-haiku-5-5`; "It also fails if a thinking block between others
 *   was left out or moved"; for code that "trims, collapses or summarizes older turns": "remove
 *   thinking from the kept turns".
 * - …/models/fable-5-2/whats-new-fable-5-2: "The prefix check applies to every account."
 * - SDK 1.12 beta types (`BetaThinkingBlockBinding`): `prefix_mismatch_behavior` "error"
 *   (default) fails the request with a 400; "drop_block" removes the failing blocks.
 */
import { canonicalModelId } from './modelIds';

const CHECKED = [
  /^claude-(fable|mythos)-5-([1-9]|\d\d)(\b|-|$)/,
  /^claude-(opus|sonnet|haiku)-5-([5-9]|\d\d)(\b|-|$)/,
  // Later generations are assumed to keep the check: leaving thinking out costs reasoning, never validity.
  /^claude-(opus|sonnet|haiku|fable|mythos)-([6-9]|\d\d)(\b|-|$)/,
];

/**
 * Whether the API checks the prefix of the thinking blocks sent back to `model` (any platform's
 * spelling of the id; dated ids and aliases match their family). Unknown models: false.
 */
export function checksThinkingPrefix(model: string): boolean {
  const id = canonicalModelId(model);
  return CHECKED.some((r) => r.test(id));
}
