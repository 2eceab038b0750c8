/**
 * What this session has shown about its own rhythm, for choosing cache lifetimes
 * (ttlChoice.ts): how often a request ends a turn (the user speaks next), and how often the
 * user's reply comes back after the 5-minute cache has expired but within the hour a 1-hour
 * entry lives. Both start from a prior and move toward what the session does, so the first
 * requests of a session already have an answer and a long session follows its own habits.
 * Pure: the caller says when each request was sent and whether it started a turn.
 */
import type { Message } from '../conversation/conversationModel';
import { ttlMs } from './cacheAnchors';

/** Whether a request of `messages` starts a turn: its last message is the user's, with no tool result in it. */
export function startsTurn(messages: readonly Message[]): boolean {
  const last = messages.at(-1);
  return last !== undefined && last.role === 'user' && !last.blocks.some((b) => b.type === 'tool_result');
}

/** What the lifetime choice needs to know about the session's rhythm. */
export interface GapStats {
  /** Chance that a request is the last of its turn (its answer goes to the user). */
  readonly turnEnd: number;
  /** Chance that, after a turn ends, the user's next message comes after 5 minutes and within the hour. */
  readonly longReply: number;
  /** Chance that the reply comes after more than an hour (no lifetime bridges it). */
  readonly overHour: number;
  /** Reply gaps observed so far (0: `longReply` and `overHour` are the priors). */
  readonly replies: number;
  /** Of those, the replies that came after 5 minutes and within the hour (0: the session has not paused yet). */
  readonly longReplies: number;
  /** Requests sent so far after the first (0: nothing is known of the session's length). */
  readonly requests: number;
  /**
   * Requests the current turn has sent so far, the one that started it included (0: none yet;
   * absent: not tracked). The next request is the turn's `turnRequests + 1`-th unless it starts
   * a new turn (see {@link turnEndChance}).
   */
  readonly turnRequests?: number;
}

/**
 * The chance that the `depth`-th request of a turn (1: the one carrying the user's message)
 * ends it: the session's rate `turnEnd`, but at most 1/depth. Agent turns have a long tail: a
 * turn that has run n requests is about as likely to run n more (the Lindy estimate), so deep
 * in a long tool loop the chance that this request is the last falls as 1/n, whatever the
 * session's average. Over the real sessions in test/fixtures (131 turns, 1 137 requests) the
 * chance is 0.12 at the first request, 0.16–0.20 at the 3rd to 10th, then 0.089 at the 11th to
 * 20th, 0.036 at the 21st to 50th and 0.018 at the 51st to 100th: about 1.2/n past the tenth.
 */
export function turnEndChance(turnEnd: number, depth: number): number {
  return Math.min(turnEnd, 1 / Math.max(1, depth));
}

/**
 * The priors, each worth a few observations: an agent turn runs about ten requests (a plain
 * chat turn is one, a long task a hundred), one reply in five comes after a pause of more than
 * 5 minutes (people read the answer, try the change, run the tests) and one in twenty after
 * more than an hour. Pooled over the real sessions in test/fixtures (1 137 requests, 126
 * replies) the figures are 0.11, 0.17 and 0.
 */
const PRIOR_TURN_END = 1 / 10;
const PRIOR_TURN_END_WEIGHT = 10;
const PRIOR_LONG_REPLY = 1 / 5;
const PRIOR_LONG_REPLY_WEIGHT = 5;
const PRIOR_OVER_HOUR = 1 / 20;

/** The priors alone: what a session that has sent nothing yet is assumed to do. */
export const PRIOR_GAP_STATS: GapStats = {
  turnEnd: PRIOR_TURN_END,
  longReply: PRIOR_LONG_REPLY,
  overHour: PRIOR_OVER_HOUR,
  replies: 0,
  longReplies: 0,
  requests: 0,
  turnRequests: 0,
};

/** A request the session made before it was reopened: when its answer was saved, and its turn. */
export interface PastRequest {
  readonly at: number;
  readonly turn: number;
}

/** Learns a session's {@link GapStats} from the requests it sends (see the module comment). */
export class ReplyGaps {
  /**
   * The rhythm of a reopened session, learned from the requests it saved (oldest first; a
   * request starts a turn when its turn differs from the one before). The times its answers
   * were saved stand in for the times its requests were sent: a gap is measured from the
   * previous answer rather than the previous request, seconds apart in a reply gap of minutes.
   * The next request observed is measured from the last of them, so the pause of the reopening
   * counts as a reply like any other.
   */
  static fromPast(past: readonly PastRequest[]): ReplyGaps {
    const gaps = new ReplyGaps();
    past.forEach((r, i) => gaps.observe(r.at, i === 0 || r.turn !== past[i - 1]?.turn));
    return gaps;
  }

  private requests = 0;
  private turnsEnded = 0;
  private replies = 0;
  private longReplies = 0;
  private overHour = 0;
  private turnRequests = 0;
  private lastAt: number | undefined;

  /**
   * A request was sent at `at`; `startsTurn` when it carries a new message of the user's
   * (not only tool results). The gap since the previous request then counts as a reply gap,
   * and the previous request as the end of its turn.
   */
  observe(at: number, startsTurn: boolean): void {
    if (startsTurn && this.lastAt !== undefined) {
      this.turnsEnded++;
      this.replies++;
      const gap = at - this.lastAt;
      if (gap > ttlMs('5m') && gap <= ttlMs('1h')) this.longReplies++;
      else if (gap > ttlMs('1h')) this.overHour++;
    }
    if (this.lastAt !== undefined) this.requests++;
    this.turnRequests = startsTurn ? 1 : this.turnRequests + 1;
    this.lastAt = at;
  }

  /** The session's figures so far, each its prior moved by what was observed. */
  get stats(): GapStats {
    return {
      turnEnd: (this.turnsEnded + PRIOR_TURN_END * PRIOR_TURN_END_WEIGHT) / (this.requests + PRIOR_TURN_END_WEIGHT),
      longReply:
        (this.longReplies + PRIOR_LONG_REPLY * PRIOR_LONG_REPLY_WEIGHT) / (this.replies + PRIOR_LONG_REPLY_WEIGHT),
      overHour: (this.overHour + PRIOR_OVER_HOUR * PRIOR_LONG_REPLY_WEIGHT) / (this.replies + PRIOR_LONG_REPLY_WEIGHT),
      replies: this.replies,
      longReplies: this.longReplies,
      requests: this.requests,
      turnRequests: this.turnRequests,
    };
  }
}
