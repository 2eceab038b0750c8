/**
 * A session's tool runner that keeps file checkpoints (checkpointStore.ts) around the calls
 * that can change workspace files, under the session's newest message of the user's (the
 * checkpoint the change happened after):
 * - a tool that edits a path (`edit` effect: edit_file): the file's content before the write,
 *   and after;
 * - a tool that runs something or acts outside the pipeline's knowledge (`run`: run_command;
 *   `delegate`: a subagent, whose own tools edit; `external`: an MCP tool, which may write
 *   files): a snapshot of the workspace before and after, and what changed between them (the
 *   limits of what a snapshot sees are in workspaceSnapshot.ts).
 * Reading, listing and searching tools run as they are. A checkpoint that could not be kept
 * never stops the call: its notice (a file too large to keep, a symbolic link, a journal that
 * cannot be written) goes to `notify`. No vscode.
 */
import type { ToolEffect } from '../../core/conversation/conversationModel';
import type { ToolCall, ToolRunner } from '../../core/tools/toolRunner';
import { resolveToolPath } from '../tools/paths';
import type { CheckpointStore } from './checkpointStore';

/** What the wrapper needs besides the inner runner. */
export interface CheckpointingDeps {
  readonly store: CheckpointStore;
  /** The session's newest message of the user's (the current checkpoint); undefined before any. */
  readonly checkpoint: () => string | undefined;
  /** The workspace folders (as the tools resolve paths). */
  readonly roots: () => readonly string[];
  /** A tool's effect, from its definition (undefined: a tool the pipeline does not define). */
  readonly effectOf: (name: string) => ToolEffect | undefined;
  /** Says a checkpoint notice to the user. */
  readonly notify: (text: string) => void;
}

const SNAPSHOT_EFFECTS: ReadonlySet<ToolEffect | undefined> = new Set<ToolEffect | undefined>([
  'run',
  'delegate',
  'external',
  undefined,
]);

/** `inner` with file checkpoints kept around its writing calls (see the module comment). */
export function checkpointingTools(inner: ToolRunner, deps: CheckpointingDeps): ToolRunner {
  return {
    async run(call, signal, onState) {
      const checkpoint = deps.checkpoint();
      const effect = deps.effectOf(call.name);
      if (checkpoint === undefined || !(effect === 'edit' || SNAPSHOT_EFFECTS.has(effect)))
        return inner.run(call, signal, onState);
      if (effect === 'edit') {
        const abs = await pathOf(call, deps.roots());
        if (abs === undefined) return inner.run(call, signal, onState);
        const before = await deps.store.beforeWrite(checkpoint, abs);
        if (before.ok && before.notice) deps.notify(before.notice);
        const outcome = await inner.run(call, signal, onState);
        if (before.ok) await deps.store.afterWrite(checkpoint, abs);
        return outcome;
      }
      const first = await deps.store.snapshotWorkspace(undefined, signal);
      const outcome = await inner.run(call, signal, onState);
      const second = await deps.store.snapshotWorkspace();
      const recorded = await deps.store.recordCommand(checkpoint, deps.store.diffSnapshots(first, second));
      for (const n of recorded.notices) deps.notify(n);
      if (recorded.error) deps.notify(`Checkpoint: ${recorded.error}`);
      return outcome;
    },
  };
}

/** The absolute path an editing call writes, as the tool resolves it; undefined when it would refuse it. */
async function pathOf(call: ToolCall, roots: readonly string[]): Promise<string | undefined> {
  const input = call.input as { path?: unknown } | null;
  if (typeof input?.path !== 'string') return undefined;
  const resolved = await resolveToolPath({ roots }, input.path, 'write');
  return resolved.ok ? resolved.path : undefined;
}
