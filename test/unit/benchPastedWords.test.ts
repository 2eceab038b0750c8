import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { policy } from '../../bench/policies';
import { prepareTranscript, replay } from '../../bench/replayCore';
import { parseTranscript } from '../../bench/transcript';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';
import { fixtureTranscripts } from './support/benchTranscripts';
import { pasteIntoEveryMessage } from './support/pastedWords';

/**
 * Every real session with code pasted into every message of the user (support/pastedWords.ts):
 * the user's words, which compaction keeps verbatim, come to more than the window. Replayed by
 * the default pipeline, no request may overflow or be refused: the tail guard cuts the older
 * long messages (a 12 000-character paste to 2 000 characters, then the oldest to 400).
 * Before it did, the Sonnet session overflowed 275 of its 431 requests at 100k.
 */
describe('bench replay: real sessions with code pasted into every message', function () {
  this.timeout(180_000);
  const tokenizer = createTiktokenTokenizer();
  const runs: [number, number][] = [
    [12_000, 100_000],
    [3_000, 100_000],
    [12_000, 200_000],
  ];
  for (const file of fixtureTranscripts()) {
    const name = file.split('/').pop() ?? file;
    for (const [chars, window] of runs)
      it(`${name}, ${chars.toLocaleString('en-US')} characters pasted each time, at ${window / 1000}k: no overflow, no invalid request`, async () => {
        const text = pasteIntoEveryMessage(readFileSync(file, 'utf8'), chars);
        const t = prepareTranscript(name, parseTranscript(text, `${name} (pasted)`), tokenizer);
        const r = await replay(t, { window, policy: policy('default') });
        assert.equal(r.invalidCount, 0, [...r.invalid.keys()].join('; '));
        assert.equal(r.overflows, 0, `peak ${r.peak}`);
      });
  }
});
