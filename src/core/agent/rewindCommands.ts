/**
 * Retry and Edit of the user's last message on a live session, and the restore of such a
 * rewind: each is saved first (a compaction entry, and for a restore the displaced answer's
 * rewind then the restore), then the conversation changes and the views are told. The rules
 * of what leaves are core/compaction/rewind.ts's.
 */
import type { Message } from '../conversation/conversationModel';
import {
  FILES_STAY_CHANGED,
  filesRewindRecord,
  isFilesOnlyRewind,
  planRewind,
  planRewindRestore,
  planRewindTo,
  type RewindContext,
  type RewindKind,
} from '../compaction/rewind';
import { classifyToolCall } from '../tools/toolKinds';
import type { CompactionRecord } from '../compaction/types';
import { messageRawTokens } from '../tokens/blockTokens';
import { errorText } from '../text/errors';
import type { SendResult, SessionCore } from './sessionCore';
import { latestPlanIn, planBefore, planChangedSince, startOf } from '../plan/planHistory';
import { followPlan } from './planCommands';

/** Why a rewind waits. */
export const REWIND_BUSY = 'A turn is still running: stop it or wait for it to finish first.';

/**
 * Takes the user's last turn back (Retry: its answers; Edit: the message too), saved first.
 * Refused while a turn or compaction runs, and for the reasons of `planRewind`. A warning
 * notice says when the removed turn edited files or ran commands: those stay as they are.
 */
export async function rewindLast(core: SessionCore, kind: RewindKind, messageId: string): Promise<SendResult> {
  if (core.running || core.compacting) return { ok: false, reason: REWIND_BUSY };
  const plan = planRewind(core.state.messages, messageId, kind, rewindContext(core), core.compactions);
  if (!plan.ok) return plan;
  try {
    await core.deps.sink.compaction(plan.record);
  } catch (err) {
    return { ok: false, reason: `The ${kind} could not be saved, so nothing was changed: ${errorText(err)}` };
  }
  core.applyRewind(plan.record, plan.messages);
  edited(core, `the ${kind} of your last message`, [plan.record]);
  // The plan goes back to what it was before the turn taken back, when that turn changed it.
  const start = startOf(plan.record.originals);
  if (planChangedSince(core.planChanges, start))
    await followPlan(core, planBefore(core.planChanges, start), 'before that turn');
  if (changedFiles(plan.record.originals))
    core.emit({
      type: 'notice',
      level: 'warning',
      text: `${kind === 'retry' ? 'Retry' : 'Edit'}: ${FILES_STAY_CHANGED}`,
    });
  return { ok: true };
}

/** What a Rewind to here takes back: the conversation (from the message on), the files (through the host), or both. */
export interface RewindToOptions {
  readonly conversation: boolean;
  /**
   * Puts the workspace files back to the message's checkpoint under the rewind's record id
   * (the host's file rewinder, which asks about conflicts); absent: the files stay as they are.
   * Runs before anything is saved: when it fails, nothing changes.
   */
  readonly files?: (recordId: string) => Promise<SendResult>;
}

/**
 * Rewind to here on the user's message `messageId` (core/compaction/rewind.ts planRewindTo):
 * the files first (when asked), then the record saved, then the conversation changes. The
 * result carries the message's words (they go back to the composer) when the conversation
 * rewound. Refused while a turn or compaction runs.
 */
export async function rewindTo(
  core: SessionCore,
  messageId: string,
  opts: RewindToOptions,
): Promise<SendResult & { readonly words?: string }> {
  if (core.running || core.compacting) return { ok: false, reason: REWIND_BUSY };
  if (!opts.conversation && !opts.files) return { ok: false, reason: 'Nothing was chosen to rewind.' };
  const ctx = rewindContext(core);
  const plan = opts.conversation
    ? planRewindTo(core.state.messages, messageId, ctx)
    : {
        ok: true as const,
        messages: core.state.messages,
        record: filesRewindRecord(core.state.messages, messageId, ctx),
      };
  if (!plan.ok) return plan;
  if (opts.files) {
    const files = await opts.files(plan.record.id);
    if (!files.ok) return files;
  }
  try {
    await core.deps.sink.compaction(plan.record);
  } catch (err) {
    return {
      ok: false,
      reason: `The rewind could not be saved, so the conversation was not changed: ${errorText(err)}`,
    };
  }
  core.applyRewind(plan.record, plan.messages);
  edited(core, 'a rewind', [plan.record]);
  if (!opts.conversation) return { ok: true };
  const start = startOf(plan.record.originals);
  if (planChangedSince(core.planChanges, start))
    await followPlan(core, planBefore(core.planChanges, start), 'before that message');
  const target = plan.record.originals[0];
  const words = target?.blocks
    .flatMap((b) => (b.type === 'text' && b.meta.source === 'user' ? [b.text] : []))
    .join('\n\n');
  return { ok: true, ...(words ? { words } : {}) };
}

/**
 * Restores rewind `record` (see planRewindRestore): the answer that took its place is saved as
 * a rewind of its own, then the restore; only then does memory change. A failed save leaves
 * the conversation as it was (a displaced answer's rewind already saved is undone in the file).
 */
export async function restoreRewind(core: SessionCore, record: CompactionRecord): Promise<SendResult> {
  const filesOnly = isFilesOnlyRewind(record);
  const plan = filesOnly
    ? { ok: true as const, messages: core.state.messages, displaced: undefined }
    : planRewindRestore(core.state.messages, record, rewindContext(core), core.compactions);
  if (!plan.ok) return plan;
  // The files the rewind put back go forward again first (the host asks about conflicts); refused: nothing changes.
  const files = await core.deps.rewindFiles?.undo(record.id);
  if (files && !files.ok) return files;
  try {
    if (plan.displaced) await core.deps.sink.compaction(plan.displaced);
  } catch (err) {
    return { ok: false, reason: `The restore could not be saved, so nothing was changed: ${errorText(err)}` };
  }
  try {
    await core.deps.sink.restore(record.id);
  } catch (err) {
    if (plan.displaced) await core.deps.sink.restore(plan.displaced.id).catch(() => undefined);
    return { ok: false, reason: `The restore could not be saved, so nothing was changed: ${errorText(err)}` };
  }
  core.applyRestore(record.id, { ...core.state, messages: plan.messages }, plan.displaced);
  core.emit({ type: 'restored', recordId: record.id });
  edited(core, `the restore of ${record.id}`, plan.displaced ? [plan.displaced] : []);
  // The restored turn's plan comes back with it; else the plan before the answer it displaced.
  const restored = latestPlanIn(record.originals);
  if (restored) await followPlan(core, restored, 'in the restored turn');
  else if (plan.displaced && planChangedSince(core.planChanges, startOf(plan.displaced.originals)))
    await followPlan(core, planBefore(core.planChanges, startOf(plan.displaced.originals)), 'before that answer');
  return { ok: true };
}

/** Whether any of `messages` called a tool that edits files or runs commands. */
export function changedFiles(messages: readonly Message[]): boolean {
  return messages.some((m) =>
    m.blocks.some((b) => b.type === 'tool_use' && ['edit', 'run'].includes(classifyToolCall(b).kind)),
  );
}

/** The history changed outside a turn: the cache verdict can name it, the compactor re-reads, the views re-render. */
function edited(core: SessionCore, what: string, records: readonly CompactionRecord[]): void {
  core.accounting.noteEdit(what);
  core.deps.compactor?.historyEdited();
  core.emit({ type: 'history_replaced', messages: core.state.messages });
  core.emit({ type: 'compaction_finished', records, notices: [] });
}

function rewindContext(core: SessionCore): RewindContext {
  const { tokenizer } = core.deps;
  return {
    id: core.deps.ids.next('cmp'),
    at: core.deps.clock.now(),
    tokensOf: (m) => {
      const t = messageRawTokens(m, tokenizer);
      return t.text + t.fixed;
    },
  };
}
