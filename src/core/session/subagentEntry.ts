/**
 * A subagent's record as a session line and back (the line leaves out an unknown cost, JSON
 * having no undefined). Pure.
 */
import type { SubagentEntry } from './entries';
import type { SubagentRecord } from '../subagents/subagentRecord';

/** The line that records `record`. */
export function subagentEntryOf(record: SubagentRecord): SubagentEntry {
  const { costUsd, ...rest } = record;
  return { type: 'subagent', ...rest, ...(costUsd !== undefined ? { costUsd } : {}) };
}

/** The record a subagent line holds (no cost on the line: unknown). */
export function subagentRecordOf(entry: SubagentEntry): SubagentRecord {
  const { type: _type, costUsd, ...rest } = entry;
  return { ...rest, costUsd };
}
