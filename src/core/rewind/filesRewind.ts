/**
 * Rewinding the workspace files to a checkpoint, and undoing such a rewind, as plans: for each
 * file, the state it goes to, and whether it can (its content then was kept, or it did not
 * exist then), needs nothing (it is already so), or is a conflict — its content on disk is not
 * what it was last known to be left in (by the agent, or by a rewind), so someone changed it by
 * hand since and a rewind would lose that. The host reads the files' states on disk, asks about
 * conflicts, and applies the plan; nothing here touches a file. Pure.
 */
import type { CheckpointJournal, RewoundFile } from './checkpointJournal';
import { fileKey, notKeptNotice, restorable, sameContent, type FileRef, type FileState } from './fileState';

/** One file of a plan. */
export interface FileStep extends FileRef {
  /** What it is on disk now. */
  readonly now: FileState;
  /** What it goes to: the content kept (written back) or absent (deleted). */
  readonly to: FileState;
  /** Set when it was changed since it was last left by the agent or a rewind: why, in words. */
  readonly conflict?: string;
}

/** A plan: the files that go back (conflicts among them), those that cannot, those already there. */
export interface FilesPlan {
  /** The checkpoint (user message id) the files go back to, or forward from (an undo). */
  readonly checkpoint: string;
  readonly steps: readonly FileStep[];
  /** Files that cannot go back: their content then was not kept (too large, refused); in words. */
  readonly cannot: readonly { readonly ref: FileRef; readonly why: string }[];
  /** Files already as they would be. */
  readonly unchanged: readonly FileRef[];
}

/** A plan, or why there is none. */
export type FilesPlanResult =
  { readonly ok: true; readonly plan: FilesPlan } | { readonly ok: false; readonly reason: string };

/** How a file is shown to the user (its path, with its folder's name in a multi-root workspace). */
export type ShowPath = (ref: FileRef) => string;

/**
 * The plan of rewinding every file changed after checkpoint `messageId` back to its state
 * then; `now` says what each is on disk now.
 */
export function planFilesRewind(
  journal: CheckpointJournal,
  messageId: string,
  now: (ref: FileRef) => FileState,
  show: ShowPath,
): FilesPlanResult {
  const changed = journal.changedAfter(messageId);
  if (!changed.ok)
    return {
      ok: false,
      reason:
        'No file checkpoint was kept for that message (it was sent before file checkpoints were kept in this session).',
    };
  return {
    ok: true,
    plan: plan(
      messageId,
      changed.files.map((f) => ({ ref: { root: f.root, path: f.path }, to: f.before })),
      journal,
      now,
      show,
    ),
  };
}

/** The plan of undoing rewind `id`: each file it changed goes forward to its state just before the rewind. */
export function planFilesUndo(
  journal: CheckpointJournal,
  id: string,
  now: (ref: FileRef) => FileState,
  show: ShowPath,
): FilesPlanResult | undefined {
  const r = journal.rewind(id);
  if (!r) return undefined;
  if (r.undone) return { ok: false, reason: 'The files of this rewind were already brought forward again.' };
  return {
    ok: true,
    plan: plan(
      r.checkpoint,
      r.files.map((f) => ({ ref: { root: f.root, path: f.path }, to: f.before })),
      journal,
      now,
      show,
    ),
  };
}

/** What a rewind writes to the journal once applied: each file's state before it and after it. */
export function rewoundFiles(steps: readonly FileStep[], keptBefore: ReadonlyMap<string, FileState>): RewoundFile[] {
  return steps.map((s) => ({
    root: s.root,
    path: s.path,
    before: keptBefore.get(fileKey(s)) ?? s.now,
    after: s.to,
  }));
}

/** The conflict text of a file with unsaved changes in an editor (see withUnsavedConflicts). */
export const UNSAVED_NOTE = 'has unsaved changes in an editor';

/**
 * `plan` with each file that has unsaved changes in an editor (`unsaved`) a conflict saying so:
 * the rewind writes the file on disk, and those changes would then disagree with it. Pure.
 */
export function withUnsavedConflicts(plan: FilesPlan, unsaved: (ref: FileRef) => boolean, show: ShowPath): FilesPlan {
  const steps = plan.steps.map((s) => {
    if (!unsaved(s)) return s;
    const note = `${show(s)} ${UNSAVED_NOTE}`;
    return { ...s, conflict: s.conflict ? `${s.conflict}; it also ${UNSAVED_NOTE}` : note };
  });
  return { ...plan, steps };
}

/** A plan's summary in one sentence: how many files go back, conflicts, and those that cannot. */
export function describeFilesPlan(p: FilesPlan, show: ShowPath): string {
  const n = (k: number, w: string) => `${k} ${w}${k === 1 ? '' : 's'}`;
  const names = (refs: readonly FileRef[]) =>
    refs.slice(0, 3).map(show).join(', ') + (refs.length > 3 ? ` and ${refs.length - 3} more` : '');
  const parts: string[] = [];
  if (p.steps.length > 0) parts.push(`${n(p.steps.length, 'file')} go back (${names(p.steps)})`);
  const conflicts = p.steps.filter((s) => s.conflict);
  if (conflicts.length > 0) parts.push(`${n(conflicts.length, 'file')} changed by hand since`);
  if (p.cannot.length > 0) parts.push(`${n(p.cannot.length, 'file')} cannot (${names(p.cannot.map((c) => c.ref))})`);
  return parts.length > 0 ? `${parts.join('; ')}.` : 'No file Claude changed since then needs to go back.';
}

function plan(
  checkpoint: string,
  targets: readonly { readonly ref: FileRef; readonly to: FileState }[],
  journal: CheckpointJournal,
  now: (ref: FileRef) => FileState,
  show: ShowPath,
): FilesPlan {
  const steps: FileStep[] = [];
  const cannot: { ref: FileRef; why: string }[] = [];
  const unchanged: FileRef[] = [];
  for (const { ref, to } of targets) {
    const current = now(ref);
    if (!restorable(to)) {
      cannot.push({ ref, why: notKeptNotice(show(ref), to) ?? `${show(ref)}: its content then was not kept.` });
      continue;
    }
    if (sameContent(current, to)) {
      unchanged.push(ref);
      continue;
    }
    const left = journal.lastKnown(ref);
    const conflict =
      left === undefined
        ? `${show(ref)}: what Claude left in it was not recorded, so a change by hand cannot be ruled out`
        : sameContent(current, left)
          ? undefined
          : `${show(ref)} was changed since Claude (or a rewind) last left it`;
    steps.push({ ...ref, now: current, to, ...(conflict ? { conflict } : {}) });
  }
  return { checkpoint, steps, cannot, unchanged };
}
