import { strict as assert } from 'node:assert';
import { policy } from '../../bench/policies';
import { prepareTranscript, replay } from '../../bench/replayCore';
import { readTranscript } from '../../bench/transcript';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';
import { fixtureTranscripts } from './support/benchTranscripts';

/**
 * The default pipeline over every real session in test/fixtures in a 1M-token window, the
 * window Sonnet 4.6 and Opus 4.6 default to. What pays back does not grow with the window, so
 * a summary still runs once it frees its (capped) minimum: before the caps, a 20 % minimum
 * (198k tokens) meant no summary at all on any of these sessions, and each request read the
 * whole history (peaks of 13–17 % of the window). A session whose prompt never grew past 12 %
 * of the window on its own (the Sonnet 4 session peaked at ~104k) needs no summary to stay small.
 */
describe('bench replay: the default pipeline in a 1M-token window', function () {
  this.timeout(120_000);
  const tokenizer = createTiktokenTokenizer();
  const files = fixtureTranscripts();

  for (const file of files)
    it(`${file.split('/').pop()}: summarises before the soft threshold, so the prompt stays small`, async () => {
      const events = readTranscript(file);
      const r = await replay(prepareTranscript(file, events, tokenizer), {
        window: 1_000_000,
        policy: policy('default'),
      });
      assert.equal(r.invalidCount, 0, [...r.invalid.keys()].join('; '));
      assert.equal(r.overflows, 0);
      // The largest prompt the real session sent: past 12 % of the window, only a summary keeps it small.
      const natural = Math.max(
        ...events.flatMap((e) =>
          e.kind === 'usage' && e.usage
            ? [e.usage.input_tokens + e.usage.cache_read_input_tokens + e.usage.cache_creation_input_tokens]
            : [],
        ),
      );
      if (natural > 120_000) assert.ok(r.summaries >= 1, `${r.compactions} compactions, none a summary`);
      assert.ok(r.peak < 0.12, `peak ${r.peak} of the window`);
    });
});
