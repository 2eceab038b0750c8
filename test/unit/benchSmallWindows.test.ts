import { strict as assert } from 'node:assert';
import { policy } from '../../bench/policies';
import { prepareTranscript, replay } from '../../bench/replayCore';
import { readTranscript } from '../../bench/transcript';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';
import { fixtureTranscripts } from './support/benchTranscripts';

/**
 * The default pipeline over every real session in test/fixtures at windows smaller than the
 * ones the replay table uses. A small window stands in for sessions we have not seen: a long
 * finished turn followed by a short request, a system prompt that takes a third of the window.
 * Either used to leave a protected tail nothing could shrink, so every request overflowed.
 * 50k is the smallest window in which Claude Code's 24k-token system prompt, its 16k output
 * reserve and its largest tool round fit at all.
 */
describe('bench replay: the default pipeline in small windows', function () {
  this.timeout(120_000);
  const tokenizer = createTiktokenTokenizer();
  const files = fixtureTranscripts();

  it('finds the real sessions', () => assert.ok(files.length >= 3, files.join(', ')));

  for (const file of files)
    for (const window of [50_000, 64_000])
      it(`${file.split('/').pop()} at ${window / 1000}k: no overflow, no invalid request`, async () => {
        const r = await replay(prepareTranscript(file, readTranscript(file), tokenizer), {
          window,
          policy: policy('default'),
        });
        assert.equal(r.invalidCount, 0, [...r.invalid.keys()].join('; '));
        assert.equal(r.overflows, 0, `peak ${r.peak}`);
        assert.ok(r.compactions > 0);
      });
});
