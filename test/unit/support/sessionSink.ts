import { strict as assert } from 'node:assert';
import type { SessionSink } from '../../../src/core/agent/events';
import { recordToEntry } from '../../../src/core/session/compactionEntry';
import { encodeEntry, type SessionEntry } from '../../../src/core/session/entries';
import { decodeLine } from '../../../src/core/session/lineCodec';
import { replaySession } from '../../../src/core/session/replay';
import { checkInvariants } from '../../../src/core/conversation/invariants';
import type { ConversationState } from '../../../src/core/conversation/conversationModel';
import { validateRequest } from '../../fake-anthropic/validateRequest';
import { sampleHeader } from './sessionSamples';

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

/**
 * A SessionSink that writes a session file's entries, each through the line codec (so what it
 * keeps is what a file reads back), after a sample header: `entries` is the file so far.
 */
export function fileEntriesSink(): { readonly entries: SessionEntry[]; readonly sink: SessionSink } {
  const entries: SessionEntry[] = [sampleHeader()];
  const keep = (e: SessionEntry) => {
    const line = decodeLine(encodeEntry(e));
    assert.ok(line.ok, JSON.stringify(line));
    entries.push(line.entry);
  };
  const sink: SessionSink = {
    message: async (message) => keep({ type: 'message', at: 1, message }),
    usage: async () => undefined,
    compaction: async (r) => keep(recordToEntry(r)),
    restore: async (compactionId) => keep({ type: 'restore', at: 2, compactionId }),
    pins: async () => undefined,
  };
  return { entries, sink };
}

/**
 * Asserts a session is sound: every request `requests` holds was valid for the API, `state`
 * keeps the history's invariants, and the session file `entries` replays (a resume) to the
 * same conversation.
 */
export function assertSessionSound(
  requests: readonly unknown[],
  state: ConversationState,
  entries: readonly SessionEntry[],
): void {
  for (const r of requests) validateRequest(JSON.parse(JSON.stringify(r)), 'messages');
  assert.deepEqual(checkInvariants(state), []);
  const replayed = replaySession(entries);
  assert.deepEqual(replayed.problems, []);
  assert.deepEqual(
    replayed.messages.map((m) => m.id),
    state.messages.map((m) => m.id),
    'the session file replays to the same conversation (a resume)',
  );
}
