import type { SessionSink } from '../../../src/core/agent/events';

/**
 * A SessionSink that keeps nothing: every method resolves at once and does nothing, except the
 * ones `over` replaces (e.g. `{ usage: async (u) => void usages.push(u) }` to record usage).
 * `recall` is left out unless given, as in a sink that does not keep recall counts.
 */
export function nullSink(over: Partial<SessionSink> = {}): SessionSink {
  return {
    message: async () => undefined,
    usage: async () => undefined,
    compaction: async () => undefined,
    restore: async () => undefined,
    pins: async () => undefined,
    ...over,
  };
}
