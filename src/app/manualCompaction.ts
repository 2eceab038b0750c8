/**
 * Compact Now from the chat's side. A message being prepared (after Send, before its turn
 * starts: the session opening, the project context being read) goes first: the compaction
 * waits for its preparation to end and then queues behind its turn, as it does behind a
 * running turn, instead of taking the session and leaving the message refused. Cancelling
 * (the progress's Cancel) drops a compaction waiting for either, or stops the one that runs
 * (ChatService.cancelCompaction). While one runs the composer shows Stop (the session is
 * busy, and the status says so once it begins), which stops it as Cancel does. Stop drops a
 * waiting one too, with {@link STOPPED_COMPACTION}: Stop means "stop what the agent is doing and about to do", and a
 * compaction that started right after it (minutes of summarising, the history rewritten)
 * would be the opposite; Compact Now again runs it once the chat is idle.
 */
import type { UserCommands } from '../core/agent/sessionCommands';
import type { SessionRuntime } from './ports';
import type { Opened } from './sessionLifecycle';
import type { Outcome } from './turnRunner';

/** Said when the progress's Cancel stopped the compaction that was running. */
export const STOPPED_RUNNING_COMPACTION =
  'The compaction was stopped before its summary was made; nothing was compacted. What the summary had cost so far is billed with the summaries.';

/** Why a Compact Now waiting for the turn (or a message being prepared) did not run: Stop was pressed. */
export const STOPPED_COMPACTION =
  'Stop cancelled the compaction that was queued behind the turn; nothing was compacted. Run Compact Now again to compact.';

/** What a manual compaction needs from the chat service. */
export interface ManualCompactionDeps {
  /** The open session, opening one when none is. */
  readonly ensure: () => Promise<Opened | undefined>;
  /** Resolves once no message is being prepared (its turn, if it goes, has started by then). */
  readonly prepared: () => Promise<void>;
  /** The agent takes the current settings (called only between turns). */
  readonly refresh: (runtime: SessionRuntime) => void;
  /** Posts the header status. */
  readonly postStatus: () => Promise<void>;
}

/** The commands a cancel or a stop reaches. */
type CompactionControls = { readonly commands: Pick<UserCommands, 'cancelQueuedCompaction' | 'stopCompaction'> };

/** Runs and cancels Compact Now; see the file comment. */
export class ManualCompaction {
  /** Compactions waiting for a message's preparation: Cancel marks them. */
  private readonly waiting = new Set<{ cancelled?: string }>();
  /** Compactions handed to the session (queued behind its turn, or running): a stop marks them. */
  private readonly live = new Set<{ stopped?: true }>();

  constructor(private readonly deps: ManualCompactionDeps) {}

  /** Compacts now (after a message being prepared, queued behind a running turn); resolves with the outcome. */
  async run(instructions?: string): Promise<Outcome> {
    const ticket: { cancelled?: string } = {};
    this.waiting.add(ticket);
    try {
      await this.deps.prepared();
    } finally {
      this.waiting.delete(ticket);
    }
    if (ticket.cancelled !== undefined) return { ok: false, reason: ticket.cancelled, byUser: true };
    const o = await this.deps.ensure();
    if (!o) return { ok: false, reason: 'No session is open.' };
    if (!o.runtime.agent.busy) this.deps.refresh(o.runtime);
    const live: { stopped?: true } = {};
    this.live.add(live);
    let r: Outcome;
    try {
      const done = o.runtime.agent.commands.compactNow(instructions);
      // The session is busy from here (running, or queued behind a turn): the composer shows Stop.
      await this.deps.postStatus();
      r = await done;
    } finally {
      this.live.delete(live);
    }
    await this.deps.postStatus();
    return !r.ok && live.stopped ? { ...r, byUser: true } : r;
  }

  /** Drops the compactions waiting for a message or a turn (they resolve with `reason`); whether there was one. */
  cancel(agent: CompactionControls | undefined, reason = 'Cancelled.'): boolean {
    const waited = this.waiting.size > 0;
    for (const t of this.waiting) t.cancelled = reason;
    this.waiting.clear();
    const queued = agent?.commands.cancelQueuedCompaction(reason) ?? false;
    if (queued) this.markStopped();
    return queued || waited;
  }

  /**
   * The progress's Cancel: drops a waiting compaction, or stops the one that runs (nothing is
   * compacted, a running turn goes on); what the chat says of it, undefined when neither.
   */
  cancelOrStop(agent: CompactionControls | undefined): string | undefined {
    if (this.cancel(agent)) return 'Queued compaction cancelled.';
    return this.stopRunning(agent);
  }

  /**
   * The composer's Stop: drops a waiting compaction ({@link STOPPED_COMPACTION}), or stops the
   * one that runs; what the chat says of it, undefined when neither.
   */
  stop(agent: CompactionControls | undefined): string | undefined {
    if (this.cancel(agent, STOPPED_COMPACTION)) return STOPPED_COMPACTION;
    return this.stopRunning(agent);
  }

  private stopRunning(agent: CompactionControls | undefined): string | undefined {
    if (!agent?.commands.stopCompaction()) return undefined;
    this.markStopped();
    return STOPPED_RUNNING_COMPACTION;
  }

  private markStopped(): void {
    for (const l of this.live) l.stopped = true;
  }
}
