import { engineCompaction } from '../engine/engineCompaction';
import type { Compactor } from '../compaction/compactor';
import type { CompactionRange } from '../compaction/compactionRange';
import type { ConversationState } from '../conversation/conversationModel';
import { pinBlock, pinMessage, type PinChange } from '../compaction/pins';
import { restoreRecord, type ApplyResult } from '../compaction/apply';
import { laterChanges, restoreOrderRefusal } from '../compaction/restoreOrder';
import { effectiveWindow } from '../compaction/policy';
import { SERVER_RESTORE_REFUSAL } from '../compaction/serverCompaction';
import { restoreRewind, rewindTo, type RewindToOptions } from './rewindCommands';
import { errorText } from '../text/errors';
import type { SendResult, SessionCore } from './sessionCore';

const WAIT = 'Wait for the running turn or compaction to finish.';

/**
 * The commands of a session outside its turns: Compact Now (queued behind a running turn),
 * pins, restore and recall counts. Each saves before it changes memory, so a failed save
 * changes nothing and says why; every call settles (a queued compaction too), with a reason
 * when it did not happen. Its session (AgentSession) owns it: it calls `runQueued` when a
 * turn ends and `noteRecall` for the recall tool; others get it as `UserCommands`.
 */
export class SessionCommands {
  private queued: { instructions?: string; range?: CompactionRange; done: (r: SendResult) => void } | undefined;

  constructor(private readonly core: SessionCore) {}

  /** Whether a manual compaction waits for the running turn. */
  get compactionQueued(): boolean {
    return this.queued !== undefined;
  }

  /**
   * Compacts now with the configured strategy (optional instructions for the summariser).
   * While a turn runs the request waits for the turn boundary (cancellable); one compaction
   * runs at a time. Always settles: `ok` when it compacted, else the reason (cancelled,
   * replaced, nothing to compact, or a failure, which is also emitted as an `error`).
   */
  compactNow(instructions?: string, range?: CompactionRange): Promise<SendResult> {
    const core = this.core;
    if (!core.deps.compactor) return Promise.resolve({ ok: false, reason: 'Compaction is not available.' });
    if (core.compacting) return Promise.resolve({ ok: false, reason: 'A compaction is already running.' });
    if (core.running) {
      this.queued?.done({ ok: false, reason: 'Replaced by a newer compaction request.' });
      return new Promise((done) => {
        this.queued = { ...(instructions ? { instructions } : {}), ...(range ? { range } : {}), done };
        core.emit({ type: 'compaction_queued' });
      });
    }
    return this.runManualCompaction(instructions, range);
  }

  /**
   * Summarize from here (`side` `from`: message `messageId` and what follows, up to the newest
   * tokens the plan keeps verbatim) or up to here (`upTo`: everything before it), through the
   * plan of Compact Now; restorable like any compaction. Queued behind a running turn.
   */
  summarizeAround(messageId: string, side: 'from' | 'upTo'): Promise<SendResult> {
    if (!this.core.state.messages.some((m) => m.id === messageId))
      return Promise.resolve({ ok: false, reason: 'That message is no longer in the conversation as it was sent.' });
    return this.compactNow(undefined, side === 'from' ? { fromId: messageId } : { beforeId: messageId });
  }

  /**
   * Stops the manual compaction that runs now (its summary cut short: nothing is compacted, what
   * it cost is still billed, stoppedSpend.ts); false when none runs. A running turn is not stopped.
   */
  stopCompaction(): boolean {
    if (!this.core.compacting) return false;
    this.core.stop();
    return true;
  }

  /** Drops a queued manual compaction (it resolves with `reason`, default `Cancelled.`); false when none was queued. */
  cancelQueuedCompaction(reason = 'Cancelled.'): boolean {
    const q = this.queued;
    if (!q) return false;
    this.queued = undefined;
    q.done({ ok: false, reason });
    return true;
  }

  /** Runs the compaction queued behind the turn that just ended, if any; its caller's promise always settles. */
  runQueued(): void {
    const q = this.queued;
    this.queued = undefined;
    if (!q) return;
    this.runManualCompaction(q.instructions, q.range).then(q.done, (err: unknown) =>
      q.done(this.core.compactionFailed(`The compaction failed: ${errorText(err)}`)),
    );
  }

  /**
   * One manual compaction. Never rejects: a compactor that throws is reported (an `error`
   * event and an empty `compaction_finished`) and the result says why; the session is left
   * as it was and stays usable.
   */
  private async runManualCompaction(instructions?: string, range?: CompactionRange): Promise<SendResult> {
    const core = this.core;
    const compactor = core.deps.compactor;
    if (!compactor) return { ok: false, reason: 'Compaction is not available.' };
    const controller = new AbortController();
    core.beginRun(controller, 'compaction');
    try {
      core.emit({ type: 'compaction_started', trigger: 'manual' });
      const byEngine = range ? undefined : await this.engineCompaction(compactor, controller.signal);
      if (byEngine) return byEngine;
      compactor.breaker.reset();
      const run = await compactor.compact(core.state, {
        trigger: 'manual',
        tokensToFree: 'all',
        ...(instructions ? { instructions } : {}),
        ...(range ? { range } : {}),
        signal: controller.signal,
        onSummarising: (start) => core.emit({ type: 'compaction_started', ...start }),
      });
      const adopted = await core.adopt(run.state, run.records, run.notices);
      if (!adopted.ok) return adopted;
      return run.records.length > 0
        ? { ok: true }
        : { ok: false, reason: run.notices.join(' ') || 'Nothing was compacted.' };
    } catch (err) {
      return core.compactionFailed(`The compaction failed: ${errorText(err)}`);
    } finally {
      core.endRun(controller);
    }
  }

  /**
   * Compact Now through the chosen context engine's `compact`, when it has one: its compaction
   * adopted like ours (restorable), "nothing to compact" said, or undefined — the pipeline's own
   * compaction runs — when the engine failed or its answer could not be used (said once, with why).
   */
  private async engineCompaction(compactor: Compactor, signal: AbortSignal): Promise<SendResult | undefined> {
    const core = this.core;
    const engine = core.deps.engine;
    if (!engine?.hasCompact()) return undefined;
    const step = await engine.compact(core.state, signal);
    if (step.kind === 'none') {
      core.emit({ type: 'compaction_finished', records: [], notices: [] });
      return { ok: false, reason: `The context engine "${step.use.name}" found nothing to compact.` };
    }
    if (step.kind === 'engine') {
      const made = engineCompaction(core.state, step.result, step.use.id, {
        clock: core.deps.clock,
        ids: core.deps.ids,
        tokensOf: (m) => compactor.tokensOf(m),
      });
      if (made.ok) {
        const adopted = await core.adopt(made.state, [made.record], []);
        return adopted.ok ? { ok: true } : adopted;
      }
      const refused = engine.compactRefused(step.use, made.reason);
      if (refused.notice) core.emit({ type: 'notice', level: 'warning', text: refused.notice });
      return undefined;
    }
    if (step.notice) core.emit({ type: 'notice', level: 'warning', text: step.notice });
    return undefined;
  }

  /** Pins (never compacted) or unpins every block of a message — the chat's Pin toggle — saved first. */
  setPinned(messageId: string, pinned: boolean): Promise<SendResult> {
    return this.applyPins((st) => pinMessage(st, messageId, pinned), pinned);
  }

  /** Pins or unpins one block (e.g. a Pin Selection block), saved first. */
  setBlockPinned(blockId: string, pinned: boolean): Promise<SendResult> {
    return this.applyPins((st) => pinBlock(st, blockId, pinned), pinned);
  }

  /**
   * Saves the pin change first, then applies it to the state as it is then (a turn may have
   * started meanwhile); a failed save changes nothing and says why.
   */
  private async applyPins(change: (state: ConversationState) => PinChange, pinned: boolean): Promise<SendResult> {
    const core = this.core;
    if (core.running || core.compacting) return { ok: false, reason: WAIT };
    const planned = change(core.state);
    if (!planned.ok) return planned;
    try {
      await core.deps.sink.pins(planned.blockIds, pinned);
    } catch (err) {
      return { ok: false, reason: `The ${pinned ? 'pin' : 'unpin'} could not be saved: ${errorText(err)}` };
    }
    const applied = change(core.state);
    if (applied.ok) core.replaceState(applied.state);
    core.accounting.noteEdit(pinned ? 'a pin' : 'an unpin');
    core.emit({ type: 'history_replaced', messages: core.state.messages });
    return { ok: true };
  }

  /**
   * Undoes a compaction: its originals go back in place of its replacement (a rewind: the turn
   * it took back returns, rewindCommands.ts). Refused, with the reason, while a turn or
   * compaction runs, when a later compaction still in effect changed its messages (swallowed
   * them or edited them in place: restore that one first), when the restored history would not
   * fit the window, or when the restore cannot be saved (saved first: a failed save leaves the
   * conversation and the compaction list as they were).
   */
  /**
   * Rewind to here on the user's message `messageId`: the conversation from it on, the files
   * (through `opts.files`), or both, as one restorable rewind (rewindCommands.ts `rewindTo`);
   * the message's words come back in the result when the conversation rewound.
   */
  rewindTo(messageId: string, opts: RewindToOptions): Promise<SendResult & { readonly words?: string }> {
    return rewindTo(this.core, messageId, opts);
  }

  async restore(recordId: string): Promise<SendResult> {
    const core = this.core;
    if (core.running || core.compacting) return { ok: false, reason: WAIT };
    const entry = core.compactions.find((c) => c.record.id === recordId);
    if (!entry) return { ok: false, reason: 'No such compaction in this session.' };
    if (entry.orphaned)
      return {
        ok: false,
        reason:
          'This compaction cannot be restored: the messages it replaced were lost from the session file, so there is nothing to put its originals back in place of. Its original messages can still be opened in the Compactions view.',
      };
    if (!entry.active) return { ok: false, reason: 'This compaction was already restored.' };
    if (entry.record.layer === 'server-compact') return { ok: false, reason: SERVER_RESTORE_REFUSAL };
    if (entry.record.layer === 'rewind') return restoreRewind(core, entry.record);
    const restored = this.restored(recordId);
    if (!restored.ok) return { ok: false, reason: restored.reason };
    if (core.deps.compactor) {
      const tokens = core.deps.estimator.estimate(restored.state).tokens;
      const eff = effectiveWindow(restored.state.config);
      if (tokens > eff)
        return {
          ok: false,
          reason: `Restoring would make the prompt about ${tokens.toLocaleString('en-US')} tokens, more than the ${eff.toLocaleString('en-US')} the window leaves for it. Compact something else first.`,
        };
    }
    try {
      await core.deps.sink.restore(recordId);
    } catch (err) {
      return { ok: false, reason: `The restore could not be saved, so nothing was changed: ${errorText(err)}` };
    }
    // Applied to the state as it is after the save (the same, unless a turn started meanwhile).
    const now = this.restored(recordId);
    if (!now.ok) {
      // A compaction made meanwhile changed its messages: the saved restore is skipped on reopen too (replay.ts).
      const reason =
        'order' in now
          ? `The restore was saved, but a compaction made meanwhile changed its messages, so it was not applied: ${now.reason}`
          : `The restore was saved, but the conversation changed meanwhile (${now.reason}); reopen the session to see it restored.`;
      core.emit({ type: 'error', error: { kind: 'unknown', retryable: false, message: reason } });
      return { ok: false, reason };
    }
    core.applyRestore(recordId, now.state);
    core.accounting.noteEdit(`the restore of compaction ${recordId}`);
    core.deps.compactor?.historyEdited();
    core.emit({ type: 'restored', recordId });
    core.emit({ type: 'history_replaced', messages: core.state.messages });
    return { ok: true };
  }

  /**
   * The conversation with compaction `recordId` undone, or why not: a later compaction still
   * in effect changed a message it would put back (restore that one first: restoring this one
   * now would undo that change too, while the view still shows it in effect), or its
   * replacement no longer stands in the conversation.
   */
  private restored(
    recordId: string,
  ): ApplyResult | { readonly ok: false; readonly reason: string; readonly order: true } {
    const entry = this.core.compactions.find((c) => c.record.id === recordId);
    if (!entry) return { ok: false, reason: 'No such compaction in this session.' };
    const later = laterChanges(this.core.compactions, recordId);
    if (later.length > 0) return { ok: false, reason: restoreOrderRefusal(entry.record, later), order: true };
    return restoreRecord(this.core.state, entry.record);
  }

  /** Persists a recall from `compactionIds`, then counts it and tells the views. */
  async noteRecall(toolUseId: string, compactionIds: readonly string[]): Promise<void> {
    const core = this.core;
    await core.deps.sink.recall?.({ at: core.deps.clock.now(), toolUseId, compactionIds });
    core.countRecall(compactionIds);
    core.emit({ type: 'recalled', toolUseId, compactionIds });
  }
}

/** A session's commands as its users (the host, tests) reach them: all but the session's own hooks. */
export type UserCommands = Omit<SessionCommands, 'runQueued' | 'noteRecall'>;
