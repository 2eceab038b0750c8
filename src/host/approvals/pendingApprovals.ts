/**
 * Approvals waiting for the user's answer in the chat. Each `ask` shows an item and waits;
 * `answer` settles a pending one (an unknown or already settled id is refused, so a stale or
 * forged webview message can never approve anything); Stop (the abort signal) settles it as
 * cancelled. Every state change is published as an updated item. Pure: no VS Code.
 */
import type { ApprovalDecision } from './approval';
import type { ApprovalItem } from './approvalCard';

interface Waiting {
  item: ApprovalItem;
  settle: (decision: ApprovalDecision) => void;
}

/** Why `answer` refused. */
export type AnswerRefusal = 'unknown' | 'settled';

/** The open approval prompts of the chat. */
export class PendingApprovals {
  private readonly waiting = new Map<string, Waiting>();
  private readonly settled = new Set<string>();

  /** @param publish shows an item (new or updated) in the chat. */
  constructor(private readonly publish: (item: ApprovalItem) => void) {}

  /**
   * Shows `item` (state pending) and resolves with the user's decision; never rejects. An
   * aborted `signal` resolves at once as a refusal and marks the card cancelled.
   */
  ask(item: ApprovalItem, signal: AbortSignal): Promise<ApprovalDecision> {
    if (signal.aborted) return Promise.resolve({ approved: false, reason: 'stopped before the prompt was shown' });
    return new Promise((resolve) => {
      const onAbort = () =>
        this.finish(item.id, { ...item, state: 'cancelled' }, { approved: false, reason: 'the user pressed Stop' });
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(item.id, {
        item,
        settle: (d) => {
          signal.removeEventListener('abort', onAbort);
          resolve(d);
        },
      });
      this.publish(item);
    });
  }

  /** Settles a pending approval with the user's answer; refuses ids that are not pending. */
  answer(
    id: string,
    approved: boolean,
    reason?: string,
    remember?: 'tool' | 'server',
  ): { ok: true; item: ApprovalItem } | { ok: false; why: AnswerRefusal } {
    const w = this.waiting.get(id);
    if (!w) return { ok: false, why: this.settled.has(id) ? 'settled' : 'unknown' };
    const text = reason?.trim();
    const item: ApprovalItem = {
      ...w.item,
      state: approved ? 'approved' : 'rejected',
      ...(text ? { reason: text } : {}),
    };
    // "Always allow" is only heard with an approval of an MCP call: nothing else can be remembered.
    const kept = approved && remember && w.item.tool === 'mcp' ? { remember } : {};
    this.finish(id, item, { approved, ...(text ? { reason: text } : {}), ...kept });
    return { ok: true, item };
  }

  /** The item of a pending approval (for "open the diff again"). */
  get(id: string): ApprovalItem | undefined {
    return this.waiting.get(id)?.item;
  }

  /** The pending items, oldest first (re-shown when the chat view reloads). */
  pending(): ApprovalItem[] {
    return [...this.waiting.values()].map((w) => w.item);
  }

  /** Refuses everything still pending (the extension is shutting down). */
  cancelAll(): void {
    for (const [id, w] of [...this.waiting])
      this.finish(id, { ...w.item, state: 'cancelled' }, { approved: false, reason: 'the extension shut down' });
  }

  private finish(id: string, item: ApprovalItem, decision: ApprovalDecision): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    this.settled.add(id);
    // Remembered only to tell "already answered" from "unknown" in the log: the newest 500 do.
    if (this.settled.size > 500) this.settled.delete(this.settled.values().next().value as string);
    this.publish(item);
    w.settle(decision);
  }
}
