import { strict as assert } from 'node:assert';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';
import { carryRegions, carryShare, deriveSummaryKeep, NO_CARRY, summaryCarry } from '../../bench/summaryCarry';
import { SUMMARY_KEEP } from '../../bench/summaryKeep';
import { parseTranscript, readTranscript } from '../../bench/transcript';
import { assistant, fixtureTranscripts, line, user } from './support/benchTranscripts';

const tokens = (t: string) => Math.ceil(t.length / 4);

describe('bench: what a summary carries that nothing else could', () => {
  it('counts the identifiers later answers use from the compacted region only, and which summary holds them', () => {
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
    const c = summaryCarry(events, tokens);
    assert.equal(c.compactions, 1);
    assert.equal(c.summaryOnly, 4, 'computeTotal, renderChart, src/alpha.ts, src/beta.ts');
    assert.equal(c.real, 2, 'the real summary holds computeTotal and src/alpha.ts');
    assert.equal(c.realHeld, 2);
    assert.equal(c.scripted, 1, 'a share of 4 identifiers keeps one: the newest the conversation named first');
    assert.equal(c.scriptedHeld, 1);
    assert.equal(summaryCarry(events, tokens, 1).scripted, 4, 'keeping all of them carries all');
    assert.equal(summaryCarry(events, tokens, 0).scripted, 0);
    assert.equal(carryShare(c.real, c.summaryOnly), '50.0 %');
    assert.equal(carryShare(0, 0), '–');
    const regions = carryRegions(events);
    assert.equal(
      deriveSummaryKeep(regions, tokens),
      0.255,
      'the least share on the grid keeping 2 of the 4 identifiers, as the real summary carried 2',
    );
  });

  it('measures nothing without a compaction, and has nothing to calibrate on', () => {
    const events = parseTranscript([user('hi src/a.ts'), assistant('src/a.ts')].join('\n'), 'none.jsonl');
    assert.deepEqual(summaryCarry(events, tokens), NO_CARRY);
    assert.equal(deriveSummaryKeep(carryRegions(events), tokens), 0);
  });

  it('SUMMARY_KEEP is what the fixtures’ real compactions give: the scripted summaries carry about what theirs did, in fewer tokens', () => {
    const tokenizer = createTiktokenTokenizer();
    const count = (t: string) => tokenizer.count(t);
    const events = fixtureTranscripts().map((f) => readTranscript(f));
    assert.equal(
      deriveSummaryKeep(
        events.flatMap((e) => carryRegions(e)),
        count,
      ),
      SUMMARY_KEEP,
    );
    const c = events
      .map((e) => summaryCarry(e, count))
      .reduce((a, b) => ({
        ...a,
        summaryOnly: a.summaryOnly + b.summaryOnly,
        real: a.real + b.real,
        scripted: a.scripted + b.scripted,
        realTokens: a.realTokens + b.realTokens,
        scriptedTokens: a.scriptedTokens + b.scriptedTokens,
      }));
    assert.equal(c.summaryOnly, 32);
    assert.equal(c.real, 19, 'the real summaries carried 59.4 %');
    assert.ok(
      Math.abs(c.scripted - c.real) <= 0.05 * c.summaryOnly,
      `scripted ${carryShare(c.scripted, c.summaryOnly)} against real ${carryShare(c.real, c.summaryOnly)}`,
    );
    assert.ok(c.scriptedTokens <= c.realTokens, `${c.scriptedTokens} scripted tokens, ${c.realTokens} real`);
  });
});
