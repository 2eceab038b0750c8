/**
 * Compact Now from the chat's side. A message being prepared (after Send, before its turn
 * starts: the session opening, the project context being read) goes first: the compaction
 * waits for its preparation to end and then queues behind its turn, as it does behind a
 * running turn, instead of taking the session and leaving the message refused. Cancelling
 * (the progress's Cancel) drops a compaction waiting for either.
 */
import type { SendResult } from '../core/agent/sessionCore';
import type { SessionRuntime } from './ports';
import type { Opened } from './sessionLifecycle';

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
  private readonly waiting = new Set<{ cancelled: boolean }>();

  constructor(private readonly deps: ManualCompactionDeps) {}

  /** Compacts now (after a message being prepared, queued behind a running turn); resolves with the outcome. */
  async run(instructions?: string): Promise<SendResult> {
    const ticket = { cancelled: false };
    this.waiting.add(ticket);
    try {
      await this.deps.prepared();
    } finally {
      this.waiting.delete(ticket);
    }
    if (ticket.cancelled) return { ok: false, reason: 'Cancelled.' };
    const o = await this.deps.ensure();
    if (!o) return { ok: false, reason: 'No session is open.' };
    if (!o.runtime.agent.busy) this.deps.refresh(o.runtime);
    const r = await o.runtime.agent.compactNow(instructions);
    await this.deps.postStatus();
    return r;
  }

  /** Drops the compactions waiting for a message or a turn; whether there was one. */
  cancel(agent: { cancelQueuedCompaction(): boolean } | undefined): boolean {
    const waited = this.waiting.size > 0;
    for (const t of this.waiting) t.cancelled = true;
    this.waiting.clear();
    return (agent?.cancelQueuedCompaction() ?? false) || waited;
  }
}
