import type { LlmError } from '../llm/llmClient';
import type { Compactor } from '../compaction/compactor';
import { effectiveWindow } from '../compaction/policy';
import type { CompactionRecord } from '../compaction/types';
import type { ConversationState } from '../conversation/conversationModel';
import { commitBlockEdits, type LayerContext } from '../compaction/layerContext';
import type { Block } from '../conversation/conversationModel';
import { cutOversizedToolResults } from './overflow';
import { plural } from '../text/counts';

/** What has been tried in this turn; every step is bounded, so recovery never loops. */
export interface RecoveryBudget {
  compactions: number;
  cut: boolean;
  tailCut: boolean;
  reserveLowered: number;
}

/** A fresh budget for a turn. */
export function newRecoveryBudget(): RecoveryBudget {
  return { compactions: 0, cut: false, tailCut: false, reserveLowered: 0 };
}

/** Most compactions tried after "prompt is too long" within one turn. */
export const MAX_OVERFLOW_COMPACTIONS = 3;

/** One recovery step: the new state (and any compaction records), with a sentence for the user. */
export type RecoveryStep = {
  readonly state: ConversationState;
  readonly records: readonly CompactionRecord[];
  readonly notices: readonly string[];
};

/**
 * The API said the prompt does not fit. In order: for "input length and max_tokens exceed
 * context limit", lower the answer's reserve to what is left (at most twice, only while it
 * leaves ≥ 1 024 tokens); then compact with the configured strategy (at most 3 times, each
 * must produce a record); then cut the largest assistant blocks once (a call's long input, a
 * long answer: what no compaction touches when it is the newest; tailGuard.ts); then cut
 * oversized tool results once, as one record of layer `overflow-cut` keeping the results whole
 * (restorable, in the Compactions view, searched by `recall`). Returns undefined when
 * nothing is left to try — the caller then shows a clear error with what the user can do —
 * and, past the compaction, once `signal` has aborted (the user's Stop: nothing more is cut).
 */
export async function recoverOverflow(
  state: ConversationState,
  error: LlmError,
  budget: RecoveryBudget,
  compactor: Compactor | undefined,
  signal: AbortSignal,
  ctx: Pick<LayerContext, 'clock' | 'ids' | 'tokensOf'>,
): Promise<RecoveryStep | undefined> {
  const cfg = state.config;
  const limit = error.limitTokens ?? cfg.contextWindow;
  if (error.kind === 'context_exceeded' && error.promptTokens !== undefined && budget.reserveLowered < 2) {
    const room = limit - error.promptTokens;
    if (room >= 1024 && room - 256 < cfg.outputReserve) {
      budget.reserveLowered++;
      return {
        state: { ...state, config: { ...cfg, outputReserve: room - 256 } },
        records: [],
        notices: [
          `The answer's token reserve was lowered to ${room - 256} so the request fits the ${limit}-token window.`,
        ],
      };
    }
  }
  // Tokens to shed so the prompt plus the answer's reserve fit, with a 10 % buffer.
  const over =
    Math.max(0, (error.promptTokens ?? 0) - (limit - cfg.outputReserve)) + Math.round(0.1 * effectiveWindow(cfg));
  if (compactor && budget.compactions < MAX_OVERFLOW_COMPACTIONS) {
    budget.compactions++;
    const run = await compactor.compact(state, { trigger: 'overflow', tokensToFree: over, signal });
    if (run.records.length > 0)
      return {
        state: run.state,
        records: run.records,
        notices: [
          `The conversation did not fit the context window; older turns were compacted (${run.records.length} compaction${run.records.length === 1 ? '' : 's'}) and the request was sent again.`,
          ...run.notices,
        ],
      };
  }
  // Stopped (during the compaction, or before): nothing more is cut; the turn ends as stopped.
  if (signal.aborted) return undefined;
  if (compactor && !budget.tailCut) {
    budget.tailCut = true;
    const tail = compactor.cutTail(state, over);
    if (tail.record && tail.notice)
      return { state: tail.state, records: [tail.record], notices: [`${tail.notice} The request was sent again.`] };
  }
  if (!budget.cut) {
    budget.cut = true;
    const cut = cutOversizedToolResults(state, 20_000, Math.max(over * 4 * 1.3, 20_000));
    const edits = new Map<string, Block>();
    cut.state.messages.forEach((m, i) =>
      m.blocks.forEach((b, j) => {
        if (b !== state.messages[i]?.blocks[j]) edits.set(b.meta.id, b);
      }),
    );
    const layer = { ...ctx, utilisation: 1, trigger: 'overflow' as const };
    const committed = commitBlockEdits(state, layer, edits, { layer: 'overflow-cut', trigger: 'overflow' });
    if (cut.cutBlocks > 0 && committed.record)
      return {
        state: committed.state,
        records: [committed.record],
        notices: [
          `The conversation did not fit the context window; ${plural(cut.cutBlocks, 'large tool result')} ${cut.cutBlocks === 1 ? 'was' : 'were'} cut (${cut.charsRemoved.toLocaleString('en-US')} characters) and the request was sent again.`,
        ],
      };
  }
  return undefined;
}
