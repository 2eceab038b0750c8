/**
 * What the Sessions… quick pick shows for a session and which actions it offers, without
 * VS Code (so it is unit-tested): a damaged session gets a warning icon, the reason, and
 * Open and repair / Delete; one that cannot be read at all is offered Open (which explains
 * why it fails) and Delete, never an export that would fail.
 */
import { formatBytes } from '../../core/platform/text';
import type { SessionSummary } from './sessionSummary';

/** An action of the quick pick's second step. */
export type SessionAction = 'Resume' | 'Open and repair' | 'Export as Markdown' | 'Export as JSONL' | 'Delete';

/** One row of the quick pick, with the actions its second step offers. */
export interface SessionPickItem {
  readonly id: string;
  readonly label: string;
  readonly description: string;
  readonly detail?: string;
  readonly actions: readonly SessionAction[];
}

/** The row and the actions for `s`; `formatTime` formats its time (tests pass a fixed one). */
export function sessionPickItem(s: SessionSummary, formatTime: (ms: number) => string): SessionPickItem {
  const description = `${formatTime(s.updatedAt)} · ${s.turns} ${s.turns === 1 ? 'turn' : 'turns'} · ${formatBytes(s.sizeBytes)} · ${s.model}`;
  const label = `${s.damaged ? '$(warning) ' : ''}${s.title || '(empty session)'}`;
  if (!s.damaged)
    return { id: s.id, label, description, actions: ['Resume', 'Export as Markdown', 'Export as JSONL', 'Delete'] };
  if (s.error !== undefined)
    return {
      id: s.id,
      label,
      description,
      detail: `Damaged: the file could not be read (${s.error}). Opening it explains why; it can be deleted.`,
      actions: ['Open and repair', 'Delete'],
    };
  return {
    id: s.id,
    label,
    description,
    detail: `Damaged: ${s.damage ?? 'the file looks damaged.'} Opening it repairs it (the original is backed up first).`,
    actions: ['Open and repair', 'Export as Markdown', 'Export as JSONL', 'Delete'],
  };
}
