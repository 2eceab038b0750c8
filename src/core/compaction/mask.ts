/**
 * Observation masking: older tool results become a one-line stub naming the call, the
 * result's size and how to get it back; the tool_use (and so what was asked) stays. The
 * originals stay in the record (restorable from the Compactions view). Published results
 * (Lindenbauer et al., "The Complexity Trap", arXiv 2508.21433) find masking halves the cost
 * of agent runs and matches LLM summaries on SWE-bench. No LLM; one reversible record. Pure.
 */
import type { ConversationState, Message, ToolResultBlock, ToolResultContent } from '../conversation/conversationModel';
import {
  commitResultEdits,
  hasImages,
  isPlaceholder,
  MASKED_PREFIX,
  olderEditableResults,
  resultText,
  type LayerContext,
  type LayerResult,
  type ResultSite,
} from './layerContext';
import { describeToolCall } from '../tools/toolKinds';

/** A result smaller than this many tokens is left alone: its stub would save too little. */
export const MASK_MIN_TOKENS = 60;

/**
 * The stub of a masked result of `call` that held about `tokens` tokens: what it was and the
 * model's two ways back — `recall` (always offered: agentSession.ts) reads the original from the
 * mask's record, or the tool runs again (a file may have changed since). Short, because every
 * masked result carries one until a summary takes it: ~39 tokens (the user's way back, the
 * Compactions view, is the record's and needs no words here; it was 49).
 */
export function maskStub(call: string, tokens: number, isError: boolean): string {
  const size = `${isError ? 'an error of ' : ''}about ${Math.round(tokens).toLocaleString('en-US')} tokens`;
  return `${MASKED_PREFIX}${call} returned ${size}; \`recall\` can read it back, or run the tool again.]`;
}

/** Calibrated tokens of one tool result (through the message counter, so the block's memo is reused). */
export function resultTokens(block: ToolResultBlock, tokensOf: (m: Message) => number, turn: number): number {
  return tokensOf({ id: `${block.meta.id}#result`, role: 'user', blocks: [block], turn });
}

/** A result the masking layer would clear, with the tokens it would free. */
export interface MaskCandidate {
  readonly site: ResultSite;
  readonly stub: string;
  /** Tokens freed (result minus stub), > 0. */
  readonly saving: number;
}

/**
 * The results before message index `protectFrom` that masking would clear: compactable, not
 * pinned (nor their call), not already a placeholder, at least {@link MASK_MIN_TOKENS}, and
 * whose stub is smaller. In conversation order.
 */
export function maskCandidates(
  messages: readonly Message[],
  protectFrom: number,
  tokensOf: (m: Message) => number,
): MaskCandidate[] {
  const out: MaskCandidate[] = [];
  for (const site of olderEditableResults(messages, 0)) {
    if (site.messageIndex >= protectFrom) break;
    const content: ToolResultContent = site.block.content;
    if (isPlaceholder(content)) continue;
    const turn = (messages[site.messageIndex] as Message).turn;
    const tokens = resultTokens(site.block, tokensOf, turn);
    if (tokens < MASK_MIN_TOKENS && !hasImages(content)) continue;
    const stub = maskStub(
      site.use ? describeToolCall(site.use) : 'an earlier tool call',
      tokens,
      site.block.isError === true,
    );
    const stubTokens = Math.ceil(stub.length / 3.5);
    if (tokens - stubTokens <= 0 || resultText(content).length <= stub.length) continue;
    out.push({ site, stub, saving: tokens - stubTokens });
  }
  return out;
}

/** Masks the given candidates (see {@link maskCandidates}) as one record of layer `mask`. */
export function applyMask(
  state: ConversationState,
  ctx: LayerContext,
  candidates: readonly MaskCandidate[],
): LayerResult {
  const edits = new Map<string, ToolResultContent>();
  for (const c of candidates) edits.set(c.site.block.meta.id, c.stub);
  return commitResultEdits(state, ctx, edits, { layer: 'mask', trigger: ctx.trigger ?? 'budget' });
}
