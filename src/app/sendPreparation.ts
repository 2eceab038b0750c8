/**
 * The messages between Send and the start of their turn (the session opening, the project
 * context being read), and a Stop pressed meanwhile: a stopped message is not sent (the chat
 * is busy from Send on: turnRunner.ts).
 */
export class SendPreparation {
  private count = 0;
  private stopped = false;

  /** A message starts being prepared. */
  begin(): void {
    if (this.count++ === 0) this.stopped = false;
  }

  /** Its preparation ended (call once per begin, also when it failed). */
  end(): void {
    this.count = Math.max(0, this.count - 1);
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
