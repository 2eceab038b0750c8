/**
 * The words that name a compaction to the user: its trigger and what its layer did. One home
 * for the Compactions view's rows (src/host/compactionRowText.ts) and the core's reasons
 * (e.g. a refused restore naming the compaction to restore first).
 */
import type { CompactionRecord } from './types';

/** How each trigger is named in a row's label. */
export const TRIGGER_LABEL: Record<CompactionRecord['trigger'], string> = {
  'auto-soft': 'Auto (soft)',
  'auto-hard': 'Auto (hard)',
  manual: 'Manual',
  overflow: 'Overflow',
  'tool-result': 'Tool result',
  budget: 'Budget',
  idle: 'Idle',
  rewind: 'Rewind, Retry or Edit',
};

/** What each layer did, in a few words: the kind of a compaction's row. */
export const LAYER_LABEL: Record<CompactionRecord['layer'], string> = {
  'tool-result-guard': 'result cut on arrival',
  'budget-trim': 'results trimmed',
  snip: 'stale reads removed',
  microcompact: 'old results cleared',
  mask: 'results cleared',
  summarise: 'summary',
  'fallback-drop': 'turns dropped (summary failed)',
  'middle-removal': 'middle turns removed',
  'oldest-removal': 'oldest turns removed',
  hybrid: 'turns removed',
  'server-compact': 'summary by the API',
  'tail-guard': 'cut to fit the window',
  'overflow-cut': 'results cut to fit the window',
  rewind: 'taken back',
};
