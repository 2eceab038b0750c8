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
  const label = `${s.parent !== undefined ? '$(arrow-small-right) ' : ''}${s.damaged ? '$(warning) ' : ''}${s.title || '(empty session)'}`;
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

/**
 * The sessions in the order the quick pick lists them: newest activity first (as given), each
 * subagent's session right under its parent (in the order they came); a subagent whose parent
 * is not listed (deleted) stays where it was; every session is listed exactly once.
 */
export function withChildrenUnderParents(list: readonly SessionSummary[]): SessionSummary[] {
  const ids = new Set(list.map((s) => s.id));
  const children = new Map<string, SessionSummary[]>();
  for (const s of list)
    if (s.parent !== undefined && ids.has(s.parent)) children.set(s.parent, [...(children.get(s.parent) ?? []), s]);
  const out: SessionSummary[] = [];
  const placed = new Set<string>();
  const place = (s: SessionSummary) => {
    if (placed.has(s.id)) return;
    placed.add(s.id);
    out.push(s);
    for (const c of children.get(s.id) ?? []) place(c);
  };
  for (const s of list) if (s.parent === undefined || !ids.has(s.parent)) place(s);
  // Sessions whose parents loop (hand-made files) are listed anyway, each once.
  for (const s of list) place(s);
  return out;
}
