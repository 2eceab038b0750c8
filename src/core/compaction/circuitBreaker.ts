/**
 * Circuit breaker of automatic summarisation: after 3 failures in a row it opens, and no
 * summarisation starts by itself until the user presses "try again" (`reset`) or a manual
 * compaction succeeds. The state is plain data so a session can store it.
 */
import type { CompactionTrigger } from './types';

/** Consecutive failures that open the breaker. */
export const BREAKER_THRESHOLD = 3;

/** The breaker's state. */
export interface BreakerState {
  readonly consecutiveFailures: number;
  readonly open: boolean;
  /** The last failure's reason, for the notice. */
  readonly lastError?: string;
}

/** A closed breaker with no failures. */
export const CLOSED_BREAKER: BreakerState = Object.freeze({ consecutiveFailures: 0, open: false });

/** A small state machine: closed → (3 consecutive failures) → open → (reset or success) → closed. */
export class CircuitBreaker {
  private current: BreakerState;

  constructor(
    initial: BreakerState = CLOSED_BREAKER,
    private readonly threshold: number = BREAKER_THRESHOLD,
  ) {
    this.current = initial;
  }

  /** The state, to store or show. */
  get state(): BreakerState {
    return this.current;
  }

  /** Whether automatic summarisation is stopped. */
  get isOpen(): boolean {
    return this.current.open;
  }

  /** Whether a compaction with this trigger may call the summariser: a manual one always may. */
  allows(trigger: CompactionTrigger): boolean {
    return trigger === 'manual' || !this.current.open;
  }

  /** Counts a failure; opens the breaker at the threshold. Returns the new state. */
  failure(reason?: string): BreakerState {
    const consecutiveFailures = this.current.consecutiveFailures + 1;
    this.current = {
      consecutiveFailures,
      open: this.current.open || consecutiveFailures >= this.threshold,
      ...(reason ? { lastError: reason } : {}),
    };
    return this.current;
  }

  /** A summarisation succeeded: closes the breaker and clears the count. */
  success(): BreakerState {
    this.current = CLOSED_BREAKER;
    return this.current;
  }

  /** The user's "try again": closes the breaker and clears the count. */
  reset(): BreakerState {
    this.current = CLOSED_BREAKER;
    return this.current;
  }

  /** What to tell the user while the breaker is open (the host adds a "Try again" button), else undefined. */
  notice(): string | undefined {
    if (!this.current.open) return undefined;
    const why = this.current.lastError ? ` The last error: ${this.current.lastError}` : '';
    return `Automatic summarisation of old history is paused after ${this.current.consecutiveFailures} failures in a row; old turns are dropped instead when the context is full (they can be restored from the Compactions view).${why}`;
  }
}
