import { strict as assert } from 'node:assert';
import { policy } from '../../bench/policies';
import { prepareTranscript, replay } from '../../bench/replayCore';
import { parseTranscript } from '../../bench/transcript';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';
import { chattySession } from './support/chattySession';

/**
 * A long chat of short messages (support/chattySession.ts): 700 messages of about 700
 * characters, each too short for the tail guard to cut, all kept verbatim by every
 * compaction — about 125k tokens of the user's words alone. Replayed by the default
 * pipeline, no request may overflow or be refused: the tail guard leaves the oldest messages
 * out (one marker per message). Before it could, 0.7.9 overflowed most requests at 100k.
 */
describe('bench replay: a long chat of short messages', function () {
  this.timeout(300_000);
  const tokenizer = createTiktokenTokenizer();
  const text = chattySession(700, 700);
  for (const window of [100_000, 200_000])
    it(`700 messages of 700 characters at ${window / 1000}k: no overflow, no invalid request`, async () => {
      const t = prepareTranscript('chatty', parseTranscript(text, 'chatty'), tokenizer);
      const r = await replay(t, { window, policy: policy('default') });
      assert.equal(r.invalidCount, 0, [...r.invalid.keys()].join('; '));
      assert.equal(r.overflows, 0, `peak ${r.peak}`);
    });
});
