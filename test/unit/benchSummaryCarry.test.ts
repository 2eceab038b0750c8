import { strict as assert } from 'node:assert';
import { carryShare, summaryCarry } from '../../bench/summaryCarry';
import { parseTranscript } from '../../bench/transcript';
import { assistant, line, user } from './support/benchTranscripts';

const tokens = (t: string) => Math.ceil(t.length / 4);

describe('bench: what a summary carries that nothing else could', () => {
  it('counts the identifiers later answers use from the compacted region only, and which summary holds them', async () => {
    const events = parseTranscript(
      [
        user('Look at src/alpha.ts and src/beta.ts please.'),
        assistant('alpha.ts calls computeTotal() and beta.ts calls renderChart().'),
        line({
          kind: 'compaction',
          summary: 'The user asked about src/alpha.ts; it calls computeTotal().',
          tokensBefore: 50,
        }),
        user('Go on. Also open src/gamma.ts.'),
        // computeTotal and renderChart and src/beta.ts come only from before the compaction;
        // src/gamma.ts was brought back by the user's message, so it is not summary-only.
        assistant('computeTotal() and renderChart() are in src/alpha.ts and src/beta.ts; src/gamma.ts is new.'),
      ].join('\n'),
      'carry.jsonl',
    );
    const c = await summaryCarry(events, tokens);
    assert.equal(c.compactions, 1);
    assert.equal(c.summaryOnly, 4, 'computeTotal, renderChart, src/alpha.ts, src/beta.ts');
    assert.equal(c.real, 2, 'the real summary holds computeTotal and src/alpha.ts');
    assert.ok(c.scripted >= 0 && c.scripted <= c.summaryOnly);
    assert.equal(carryShare(c.real, c.summaryOnly), '50.0 %');
    assert.equal(carryShare(0, 0), '–');
  });

  it('measures nothing without a compaction', async () => {
    const events = parseTranscript([user('hi src/a.ts'), assistant('src/a.ts')].join('\n'), 'none.jsonl');
    assert.deepEqual(await summaryCarry(events, tokens), { compactions: 0, summaryOnly: 0, real: 0, scripted: 0 });
  });
});
