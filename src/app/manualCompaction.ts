/**
 * Compact Now from the chat's side. A message being prepared (after Send, before its turn
 * starts: the session opening, the project context being read) goes first: the compaction
 * waits for its preparation to end and then queues behind its turn, as it does behind a
 * running turn, instead of taking the session and leaving the message refused. Cancelling
 * (the progress's Cancel) drops a compaction waiting for either, or stops the one that runs
 * (ChatService.cancelCompaction); Stop drops a waiting one too, with
 * {@link STOPPED_COMPACTION}: Stop means "stop what the agent is doing and about to do", and a
 * compaction that started right after it (minutes of summarising, the history rewritten)
 * would be the opposite; Compact Now again runs it once the chat is idle.
 */
import type { SendResult } from '../core/agent/sessionCore';
import type { UserCommands } from '../core/agent/sessionCommands';
import type { SessionRuntime } from './ports';
import type { Opened } from './sessionLifecycle';

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

/** Runs and cancels Compact Now; see the file comment. */
export class ManualCompaction {
  /** Compactions waiting for a message's preparation: Cancel marks them. */
  private readonly waiting = new Set<{ cancelled?: string }>();

  constructor(private readonly deps: ManualCompactionDeps) {}

  /** Compacts now (after a message being prepared, queued behind a running turn); resolves with the outcome. */
  async run(instructions?: string): Promise<SendResult> {
    const ticket: { cancelled?: string } = {};
    this.waiting.add(ticket);
    try {
      await this.deps.prepared();
    } finally {
      this.waiting.delete(ticket);
    }
    if (ticket.cancelled !== undefined) return { ok: false, reason: ticket.cancelled };
    const o = await this.deps.ensure();
    if (!o) return { ok: false, reason: 'No session is open.' };
    if (!o.runtime.agent.busy) this.deps.refresh(o.runtime);
    const r = await o.runtime.agent.commands.compactNow(instructions);
    await this.deps.postStatus();
    return r;
  }

  /** Drops the compactions waiting for a message or a turn (they resolve with `reason`); whether there was one. */
  cancel(
    agent: { readonly commands: Pick<UserCommands, 'cancelQueuedCompaction'> } | undefined,
    reason = 'Cancelled.',
  ): boolean {
    const waited = this.waiting.size > 0;
    for (const t of this.waiting) t.cancelled = reason;
    this.waiting.clear();
    return (agent?.commands.cancelQueuedCompaction(reason) ?? false) || waited;
  }

  /**
   * The progress's Cancel: drops a waiting compaction, or stops the one that runs (nothing is
   * compacted, a running turn goes on); what the chat says of it, undefined when neither.
   */
  cancelOrStop(
    agent: { readonly commands: Pick<UserCommands, 'cancelQueuedCompaction' | 'stopCompaction'> } | undefined,
  ): string | undefined {
    if (this.cancel(agent)) return 'Queued compaction cancelled.';
    return agent?.commands.stopCompaction() ? STOPPED_RUNNING_COMPACTION : undefined;
  }
}
