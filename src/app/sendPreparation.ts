/**
 * The messages between Send and the start of their turn (the session opening, the project
 * context being read), and a Stop pressed meanwhile: a stopped message is not sent (the chat
 * is busy from Send on: turnRunner.ts).
 */
export class SendPreparation {
  private count = 0;
  private stopped = false;
  /** Called once no message is being prepared. */
  private idle: Array<() => void> = [];

  /** A message starts being prepared. */
  begin(): void {
    if (this.count++ === 0) this.stopped = false;
  }

  /** Its preparation ended (call once per begin, also when it failed). */
  end(): void {
    this.count = Math.max(0, this.count - 1);
    if (this.count > 0) return;
    const waiters = this.idle;
    this.idle = [];
    for (const w of waiters) w();
  }

  /**
   * Resolves once no message is being prepared (at once when none is). Its waiters go on after
   * the code that ended the preparation has run to its next await: a message that goes has
   * started its turn by then.
   */
  settled(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Stop was pressed: every message being prepared now is not sent. No effect when none is. */
  stop(): void {
    if (this.count > 0) this.stopped = true;
  }

  /** After end(): whether Stop was pressed while this message was prepared. */
  get wasStopped(): boolean {
    return this.stopped;
  }
}
