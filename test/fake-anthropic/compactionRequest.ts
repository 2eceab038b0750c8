/**
 * Compaction on demand as the API does it, strictly enough for the tests: a request with the
 * top-level `compaction: {type: 'summarize'}` summarises every message sent and is answered by
 * one signed `compaction` block alone, stop reason `compaction`; later requests send that block
 * first in `messages`, in place of what it summarised.
 *
 * Sources: https://platform.claude.com/docs/en/build-with-claude/compaction-on-demand,
 * .../compaction-keep-recent-turns (the `compact-2026-09-04` beta on the compaction request and
 * on every request carrying the block; the supported models; a request ending on an assistant
 * turn whose tool call has no result is refused), SDK 1.12.0: `BetaCompactionConfig` ("Cannot be
 * combined with `context_management`"; `instructions` replace the server's prompt, blank counts
 * as absent), `BetaCompactionBlock` (content, encrypted_content, signature, tool_changes) and the
 * errors `compaction_block_misplaced` (not the first block of the conversation),
 * `compaction_block_ambiguous` (more than one block with content), `compaction_content_mismatch`
 * (the content differs from what its signature recorded), `compaction_incomplete_turn`,
 * `compaction_nothing_to_summarize`.
 *
 * The fake's convention: it signs the blocks it returns for a compaction request (a hash of the
 * content), and tells them by that `signature` from the unsigned blocks of `compact_20260112`
 * (contextManagement.ts), which keep their own beta and placement rules.
 */
import { createHash } from 'node:crypto';
import { supportsOnDemandCompaction } from './models';
import { invalid, isObject } from './reject';

/** Beta header of compaction on demand (SDK `AnthropicBeta`). */
export const ON_DEMAND_BETA = 'compact-2026-09-04';

/** A compaction request's config, as validated. */
export interface CompactionAsk {
  /** The instructions that replace the server's summarisation prompt (absent: its own). */
  readonly instructions?: string;
}

/** The signature the fake puts on the block it returns for `content` (base64 of a hash, like the API's form). */
export function compactionSignature(content: string): string {
  return createHash('sha256').update(`fake-claude compaction:${content}`).digest('base64');
}

/** The compaction blocks of `messages` with where they are. */
function compactionBlocks(
  messages: readonly unknown[],
): { readonly i: number; readonly j: number; readonly b: Record<string, unknown> }[] {
  const out: { i: number; j: number; b: Record<string, unknown> }[] = [];
  messages.forEach((m, i) => {
    if (!isObject(m) || !Array.isArray(m.content)) return;
    (m.content as unknown[]).forEach((b, j) => {
      if (isObject(b) && b.type === 'compaction') out.push({ i, j, b });
    });
  });
  return out;
}

/**
 * Validates the request's signed compaction blocks (any request) and its `compaction` (a
 * compaction request); returns the latter's config, or undefined for an ordinary request.
 */
export function checkCompaction(
  body: Record<string, unknown>,
  betaHeader: string | undefined,
): CompactionAsk | undefined {
  const betas = new Set(
    (betaHeader ?? '')
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean),
  );
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  const blocks = compactionBlocks(messages);
  const signed = blocks.filter((x) => typeof x.b.signature === 'string');
  for (const { i, j, b } of signed) {
    const loc = `messages.${i}.content.${j}`;
    if (!betas.has(ON_DEMAND_BETA))
      invalid(
        'beta_required',
        `${loc}: a compaction block from a compaction request requires the \`${ON_DEMAND_BETA}\` beta header`,
      );
    if (i !== 0 || j !== 0)
      invalid(
        'compaction_block_misplaced',
        `${loc}: The \`compaction\` block is not the first block of the conversation.`,
      );
    if (typeof b.content === 'string' && b.signature !== compactionSignature(b.content))
      invalid(
        'compaction_content_mismatch',
        `${loc}: The \`compaction\` block's \`content\` differs from the text its \`signature\` recorded.`,
      );
  }
  if (blocks.filter((x) => typeof x.b.content === 'string' && x.b.content !== '').length > 1 && signed.length > 0)
    invalid(
      'compaction_block_ambiguous',
      'messages: more than one `compaction` block with content; send only the block returned last.',
    );
  const c = body.compaction;
  if (c === undefined || c === null) return undefined;
  if (!isObject(c)) invalid('compaction', 'compaction: Input should be a valid dictionary');
  for (const key of Object.keys(c))
    if (key !== 'type' && key !== 'instructions')
      invalid('extra_field', `compaction.${key}: Extra inputs are not permitted`);
  if (c.type !== 'summarize')
    invalid(
      'compaction',
      `compaction: Input tag '${String(c.type)}' found using 'type' does not match any of the expected tags: 'summarize'`,
    );
  if (c.instructions !== undefined && c.instructions !== null && typeof c.instructions !== 'string')
    invalid('compaction', 'compaction.instructions: Input should be a valid string');
  if (!betas.has(ON_DEMAND_BETA))
    invalid('beta_required', `compaction: requires the \`${ON_DEMAND_BETA}\` beta header`);
  if (body.context_management !== undefined && body.context_management !== null)
    invalid('compaction_with_context_management', '`compaction` cannot be combined with `context_management`.');
  if (typeof body.model === 'string' && !supportsOnDemandCompaction(body.model))
    invalid('compaction_unsupported_model', `compaction: ${body.model} does not support compaction on demand.`);
  checkTurns(messages);
  const instructions = typeof c.instructions === 'string' && c.instructions.trim() ? c.instructions : undefined;
  return instructions ? { instructions } : {};
}

/** A compaction request must hold content to summarise and must not end on an assistant turn with an unanswered tool call. */
function checkTurns(messages: readonly unknown[]): void {
  const content = messages.some(
    (m) =>
      isObject(m) &&
      (typeof m.content === 'string'
        ? m.content.trim() !== ''
        : Array.isArray(m.content) && (m.content as unknown[]).some((b) => isObject(b) && b.type !== 'compaction')),
  );
  if (!content && compactionBlocks(messages).length === 0)
    invalid('compaction_nothing_to_summarize', 'messages: no `user` or `assistant` content to summarize or adopt.');
  const last = messages.at(-1);
  if (
    isObject(last) &&
    last.role === 'assistant' &&
    Array.isArray(last.content) &&
    (last.content as unknown[]).some((b) => isObject(b) && b.type === 'tool_use')
  )
    invalid('compaction_incomplete_turn', 'The compaction request ends on an `assistant` turn that is not finished.');
}

/** The block answering a compaction request: the summary, signed. */
export function onDemandBlock(content: string): {
  readonly type: 'compaction';
  readonly content: string;
  readonly encrypted_content: null;
  readonly signature: string;
} {
  return { type: 'compaction', content, encrypted_content: null, signature: compactionSignature(content) };
}

/**
 * The fake's summary of a compaction request: the scripted one, else a line naming what was
 * summarised (with the carried summary of a block sent first, so a chain of compactions
 * keeps something of each).
 */
export function defaultCompactionSummary(messages: readonly unknown[], promptTokens: number): string {
  const carried = compactionBlocks(messages)
    .map((x) => (typeof x.b.content === 'string' ? x.b.content : ''))
    .filter(Boolean);
  return [
    `Summary of ${messages.length} messages (${promptTokens} tokens) compacted on demand by the fake server.`,
    ...carried,
  ].join('\n');
}
