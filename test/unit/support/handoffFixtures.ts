/** Builders the handoff tests share: a summarise record standing in for some messages. */
import type { CompactionRecord } from '../../../src/core/compaction/types';
import type { Message, SummaryBlock } from '../../../src/core/conversation/conversationModel';
import { Build } from './builders';

/**
 * A summarise record of `originals` (their first and last turns) whose replacement is a summary
 * block and an acknowledgement; `summary` its text.
 */
export function summaryRecord(
  id: string,
  originals: readonly Message[],
  summary = `Summary of turns ${originals[0]?.turn}–${originals.at(-1)?.turn}: work was done.`,
): CompactionRecord {
  const b = new Build(id);
  const first = originals[0]?.turn ?? 1;
  const last = originals.at(-1)?.turn ?? first;
  const block: SummaryBlock = {
    type: 'summary',
    text: summary,
    compactionId: id,
    turnRange: [first, last],
    meta: { ...b.text('').meta, tier: 0, source: 'compactor', compactable: false },
  };
  return {
    id,
    at: 0,
    trigger: 'auto-soft',
    layer: 'summarise',
    strategy: 'summarise',
    regions: [{ firstTurn: first, lastTurn: last, messageIds: originals.map((m) => m.id), tokens: 1000 }],
    originals,
    replacement: [
      b.message('user', [block], first),
      b.message('assistant', [b.text('Understood.', 'compactor')], last),
    ],
    summary,
    tokensBefore: 1000,
    tokensAfter: 100,
    costUsd: 0,
    durationMs: 0,
    fallbacks: [],
  };
}
