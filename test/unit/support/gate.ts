/**
 * Synchronisation for tests that must not depend on wall-clock timing: a gate a test opens
 * when it chooses, and waiting for a condition (polled, with a generous upper bound that is
 * never a sleep: it only ends a wait that would otherwise hang).
 */

/** A one-shot signal: `wait()` resolves once `open()` has been called, before or after. */
export class Gate {
  private opened = false;
  private readonly promise: Promise<void>;
  private resolve!: () => void;

  constructor() {
    this.promise = new Promise<void>((r) => (this.resolve = r));
  }

  /** Opens the gate; every waiter, present and future, goes on. Idempotent. */
  open(): void {
    this.opened = true;
    this.resolve();
  }

  /** Whether `open()` was called. */
  get isOpen(): boolean {
    return this.opened;
  }

  /** Resolves once the gate is open. */
  wait(): Promise<void> {
    return this.promise;
  }
}

/** Counts events (a request arriving, a tool starting); `reached(n)` resolves once `n` have happened. */
export class Counter {
  private n = 0;
  private waiters: Array<{ readonly n: number; readonly resolve: () => void }> = [];

  /** Counts one more event and wakes the waiters it satisfies. */
  bump(): void {
    this.n++;
    const ready = this.waiters.filter((w) => w.n <= this.n);
    this.waiters = this.waiters.filter((w) => w.n > this.n);
    for (const w of ready) w.resolve();
  }

  /** Events so far. */
  get count(): number {
    return this.n;
  }

  /** Resolves once at least `n` events have happened (at once if they already have). */
  reached(n: number): Promise<void> {
    if (this.n >= n) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiters.push({ n, resolve }));
  }
}

/** How long {@link waitUntil} waits by default before failing: an upper bound for a busy machine, not a delay. */
export const WAIT_LIMIT_MS = 15_000;

/**
 * Resolves with the first truthy value `probe` returns, checking again every `intervalMs`;
 * rejects naming `what` after `limitMs`. Use it only for what has no event to wait for (a
 * file another process writes, a process dying).
 */
export async function waitUntil<T>(
  what: string,
  probe: () => T | Promise<T>,
  { limitMs = WAIT_LIMIT_MS, intervalMs = 10 } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${limitMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
