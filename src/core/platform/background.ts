/**
 * Work started and not waited for, with its failure reported: the one way a promise nobody
 * awaits is let go (lint's no-floating-promises and local/void-promise-reason see to the rest).
 */
import { errorDetail } from '../text/errors';
import type { Logger } from './platformPorts';

/**
 * Lets `work` run on without waiting for it: a rejection is logged as an error, "`what` failed:"
 * with its stack, and never left unhandled. Returns at once; `log.error` must not throw.
 */
export function inBackground(work: PromiseLike<unknown>, log: Pick<Logger, 'error'>, what: string): void {
  // The rejection handler is the report; the chain it ends cannot reject (log.error does not throw).
  void Promise.resolve(work).then(undefined, (err: unknown) => log.error(`${what} failed: ${errorDetail(err)}`));
}
