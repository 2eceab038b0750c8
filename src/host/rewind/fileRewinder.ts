/**
 * Puts workspace files back to a checkpoint (a rewind) and forward again (its undo), on disk,
 * from a session's CheckpointStore: the plan from core/rewind/filesRewind.ts over the files'
 * states now; then, for each step the user let go (a conflict only when they chose to
 * overwrite it), the file's current content kept first (so the undo can bring it back), the
 * kept content written (parent folders made) or the file deleted; then one journal entry
 * naming what was done. A file that is now a symbolic link, or cannot be read, is never
 * written. Never throws: failures are values, and files already written stay recorded.
 * No vscode: tested under plain mocha.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileKey, type FileRef, type FileState } from '../../core/rewind/fileState';
import {
  planFilesRewind,
  planFilesUndo,
  rewoundFiles,
  type FilesPlan,
  type FilesPlanResult,
  type FileStep,
  type ShowPath,
} from '../../core/rewind/filesRewind';
import { errorCode } from '../tools/paths';
import type { CheckpointStore } from './checkpointStore';

/** What applying a plan did. */
export interface Applied {
  /** Files written or deleted. */
  readonly done: readonly FileRef[];
  /** Conflicts left as they are (the user chose not to overwrite them). */
  readonly skipped: readonly FileRef[];
  /** Files that could not be put back, with why. */
  readonly failed: readonly { readonly ref: FileRef; readonly why: string }[];
}

/** A session's file rewinds (see the module comment). */
export class FileRewinder {
  constructor(
    private readonly store: CheckpointStore,
    private readonly show: ShowPath,
  ) {}

  /** The plan of rewinding the files to checkpoint `messageId` (each file's current content kept). */
  async plan(messageId: string): Promise<FilesPlanResult> {
    const changed = this.store.journal.changedAfter(messageId);
    const now = await this.statesNow(changed.ok ? changed.files : []);
    return planFilesRewind(this.store.journal, messageId, (r) => now.get(fileKey(r)) ?? { kind: 'absent' }, this.show);
  }

  /** The plan of undoing rewind `id`; undefined when it changed no file. */
  async planUndo(id: string): Promise<FilesPlanResult | undefined> {
    const r = this.store.journal.rewind(id);
    if (!r) return undefined;
    const now = await this.statesNow(r.files);
    return planFilesUndo(this.store.journal, id, (f) => now.get(fileKey(f)) ?? { kind: 'absent' }, this.show);
  }

  /** Applies rewind `id` of `plan`; conflicts are overwritten only when `overwrite`. Records it in the journal. */
  async apply(id: string, plan: FilesPlan, overwrite: boolean): Promise<Applied & { readonly error?: string }> {
    const applied = await this.write(plan.steps, overwrite);
    const doneKeys = new Set(applied.done.map(fileKey));
    const steps = plan.steps.filter((s) => doneKeys.has(fileKey(s)));
    const recorded = await this.store.recordRewind(id, plan.checkpoint, rewoundFiles(steps, new Map()));
    return recorded.ok ? applied : { ...applied, error: recorded.error };
  }

  /** Applies the undo of rewind `id` (`plan` from planUndo); records it. */
  async applyUndo(id: string, plan: FilesPlan, overwrite: boolean): Promise<Applied & { readonly error?: string }> {
    const applied = await this.write(plan.steps, overwrite);
    const recorded = await this.store.recordUndo(id);
    return recorded.ok ? applied : { ...applied, error: recorded.error };
  }

  /** The bytes a step would write (its kept content), for a diff; undefined for a deletion or a missing blob. */
  async contentOf(state: FileState): Promise<Uint8Array | undefined> {
    if (state.kind !== 'content') return undefined;
    const r = await this.store.readBlob(state.sha256);
    return r.ok ? r.bytes : undefined;
  }

  private async statesNow(refs: readonly FileRef[]): Promise<Map<string, FileState>> {
    const out = new Map<string, FileState>();
    for (const r of refs) out.set(fileKey(r), await this.store.stateNow({ root: r.root, path: r.path }));
    return out;
  }

  private async write(steps: readonly FileStep[], overwrite: boolean): Promise<Applied> {
    const done: FileRef[] = [];
    const skipped: FileRef[] = [];
    const failed: { ref: FileRef; why: string }[] = [];
    for (const step of steps) {
      const ref = { root: step.root, path: step.path };
      if (step.conflict && !overwrite) {
        skipped.push(ref);
        continue;
      }
      if (step.now.kind === 'refused') {
        failed.push({ ref, why: `${this.show(ref)} ${step.now.detail}, so it was left alone` });
        continue;
      }
      const abs = join(step.root, ...step.path.split('/'));
      try {
        if (step.to.kind === 'absent') await rm(abs, { force: true });
        else {
          const bytes = await this.contentOf(step.to);
          if (!bytes) {
            failed.push({ ref, why: `the kept copy of ${this.show(ref)} could not be read` });
            continue;
          }
          await mkdir(dirname(abs), { recursive: true });
          await writeFile(abs, bytes);
        }
        done.push(ref);
      } catch (e) {
        failed.push({ ref, why: `${this.show(ref)} could not be written (${errorCode(e) ?? String(e)})` });
      }
    }
    return { done, skipped, failed };
  }
}
