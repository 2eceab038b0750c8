import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { policy, type PolicyName } from '../../bench/policies';
import { prepareTranscript, replay, type PreparedTranscript } from '../../bench/replayCore';
import { parseTranscript } from '../../bench/transcript';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';
import { fixtureTranscripts } from './support/benchTranscripts';
import { damageTranscript } from './support/damagedTranscript';

/**
 * Every real session, damaged the ways unseen sessions are (support/damagedTranscript.ts:
 * an interrupted call, null usage, screenshots, lone surrogates, empty text, a 500 KB result, a
 * repeated tool_use id, a round of 24 parallel results larger than a 100k window, a 440 KB
 * paste, a call whose input alone is ~60k tokens, a ~60k-token answer), replayed
 * by the default pipeline with each summariser route. Every request — the conversation's and
 * the summariser's — must be one the API accepts, and none may overflow.
 */
describe('bench replay: damaged real sessions', function () {
  this.timeout(180_000);
  const tokenizer = createTiktokenTokenizer();
  const files = fixtureTranscripts();

  it('finds the real sessions', () => assert.ok(files.length >= 3, files.join(', ')));

  for (const file of files) {
    const name = file.split('/').pop() ?? file;
    let prepared: PreparedTranscript | undefined;
    const damaged = (): PreparedTranscript =>
      (prepared ??= prepareTranscript(
        name,
        parseTranscript(damageTranscript(readFileSync(file, 'utf8')), `${name} (damaged)`),
        tokenizer,
      ));
    const runs: [PolicyName, number][] = [
      ['default', 100_000],
      ['default-small', 100_000],
      ['default', 200_000],
    ];
    for (const [policyName, window] of runs)
      it(`${name}, damaged, ${policyName} at ${window / 1000}k: no overflow, no invalid request`, async () => {
        const r = await replay(damaged(), { window, policy: policy(policyName) });
        assert.equal(r.invalidCount, 0, [...r.invalid.keys()].join('; '));
        assert.equal(r.overflows, 0, `peak ${r.peak}`);
        assert.ok(r.compactions > 0);
        // What normalize repaired is counted, by kind: the interrupted call at least.
        assert.ok((r.repairs.get('tool_use_interrupted') ?? 0) > 0, [...r.repairs.keys()].join(', '));
      });
  }
});
