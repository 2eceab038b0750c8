/**
 * The server context-management parts of the next request (see serverContext.ts), from the
 * compaction settings and the state. Pure.
 */
import { clearAtLeastTokensFor, effectiveWindow, type CompactionSettings } from '../compaction/policy';
import type { ConversationState } from '../conversation/conversationModel';
import { compactionBlockBetas, hasServerCompaction } from '../pipeline/serialize';
import { planningPrices } from '../models/modelFacts';
import { clearBatchSize } from '../server/clearBatch';
import {
  CLEAR_TOOL_USES_DEFAULTS,
  DEFAULT_SERVER_CONTEXT_SETTINGS,
  serverRequestParts,
  type ServerRequestParts,
} from '../server/serverContext';

/**
 * `context_management` and betas for a request of `state` under `settings` (none without
 * settings, unless the history holds a server compaction block), or why the request cannot
 * be sent. The default `keep` of a clear is batched (clearBatch.ts) so the cleared set moves
 * rarely; a keep the user set is sent as it is.
 * `clear_thinking` is never sent: it is valid only with thinking enabled on the request, and
 * without it the API keeps its own default for earlier thinking.
 */
export function serverRequestFor(
  state: ConversationState,
  settings: CompactionSettings | undefined,
): { readonly ok: true; readonly value?: ServerRequestParts } | { readonly ok: false; readonly reason: string } {
  const hasCompactionBlock = hasServerCompaction(state);
  if (!settings && !hasCompactionBlock) return { ok: true };
  const r = serverRequestParts({
    strategy: settings?.strategy ?? 'summarise',
    settings: settings?.server ?? DEFAULT_SERVER_CONTEXT_SETTINGS,
    model: state.config.model,
    ...(state.config.serverCompaction !== undefined ? { compactionCapability: state.config.serverCompaction } : {}),
    softTokens: state.config.softThreshold * effectiveWindow(state.config),
    thinking: false,
    hasCompactionBlock,
    ...(hasCompactionBlock ? { compactionBlockBetas: compactionBlockBetas(state) } : {}),
    ...(settings ? { clearAtLeastTokens: clearAtLeastTokensFor(settings, effectiveWindow(state.config)) } : {}),
    toolNames: state.tools.map((t) => t.name),
    // A keep the user set is sent as it is; the default one is batched.
    ...((settings?.server?.keepToolUses ?? 0) > 0
      ? {}
      : {
          batching: {
            toolResults: toolResultCount(state),
            batch: clearBatchSize(CLEAR_TOOL_USES_DEFAULTS.keep, planningPrices(state.config.model)),
          },
        }),
  });
  if (!r.ok) return r;
  return r.value.betas.length > 0 || r.value.contextManagement ? { ok: true, value: r.value } : { ok: true };
}

/** The tool results `state` sends (what the API's `keep` counts). */
function toolResultCount(state: ConversationState): number {
  let n = 0;
  for (const m of state.messages) for (const b of m.blocks) if (b.type === 'tool_result') n++;
  return n;
}
