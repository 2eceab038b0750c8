import { strict as assert } from 'node:assert';
import { forwardReferences, FrrTally, frrShare } from '../../bench/frr';
import { policy } from '../../bench/policies';
import { replay } from '../../bench/replayCore';
import { parseTranscript } from '../../bench/transcript';
import type { Message } from '../../src/core/conversation/conversationModel';
import { assistant, at, prepare, usage, user } from './support/benchTranscripts';
import { mk } from './support/tokenFakes';

/**
 * Request 1's answer mentions src/app/main.ts (said before) and newThing (not said before);
 * request 2's answer mentions parseConfig and src/app/main.ts (both said before) and
 * https://example.com/docs (said before). The last usage has no answer after it.
 */
const TINY = [
  user('Please fix src/app/main.ts: parseConfig fails, see https://example.com/docs'),
  usage({ prompt: 40, read: 0, at: at(0) }),
  assistant('Reading src/app/main.ts first; I will add newThing.'),
  user('go on'),
  usage({ prompt: 60, read: 40, at: at(1) }),
  assistant([{ type: 'text', text: 'parseConfig is in src/app/main.ts, per https://example.com/docs' }]),
  user('thanks'),
  usage({ prompt: 80, read: 60, at: at(2) }),
];

describe('bench FRR: forward-reference recall', () => {
  it('finds the identifiers of the real next answer that appeared earlier in the session', () => {
    const events = parseTranscript(TINY.join('\n'));
    const refs = forwardReferences(events);
    assert.deepEqual([...refs.keys()], [1, 4], 'one entry per usage followed by an answer');
    assert.deepEqual(refs.get(1), [{ kind: 'path', id: 'src/app/main.ts' }], 'newThing was not said before');
    assert.deepEqual(refs.get(4), [
      { kind: 'path', id: 'src/app/main.ts' },
      { kind: 'symbol', id: 'parseConfig' },
      { kind: 'url', id: 'https://example.com/docs' },
    ]);
  });

  it('counts the exact share still in the context, with and without summary text, by kind', () => {
    const refs = [
      { kind: 'path', id: 'src/app/main.ts' },
      { kind: 'symbol', id: 'parseConfig' },
      { kind: 'symbol', id: 'loadTheme' },
      { kind: 'error', id: 'TypeError: cannot read properties of undefined' },
    ] as const;
    const summary: Message = {
      id: 's',
      role: 'user',
      turn: 1,
      blocks: [
        {
          type: 'summary',
          text: '- parseConfig was rewritten',
          compactionId: 'c1',
          turnRange: [1, 1],
          meta: mk.text('x').meta,
        },
      ],
    };
    const sent: Message[] = [
      summary,
      {
        id: 'm',
        role: 'user',
        turn: 2,
        blocks: [mk.text('Now src/app/main.ts throws typeerror:   Cannot read properties of undefined')],
      },
    ];
    const tally = new FrrTally();
    tally.add(sent, refs);
    const t = tally.totals();
    assert.deepEqual(t.overall, { referenced: 4, kept: 3, keptWithoutSummaries: 2 });
    assert.equal(frrShare(t.overall), 0.75);
    assert.equal(frrShare(t.overall, false), 0.5);
    assert.deepEqual(t.byKind.path, { referenced: 1, kept: 1, keptWithoutSummaries: 1 });
    assert.deepEqual(
      t.byKind.symbol,
      { referenced: 2, kept: 1, keptWithoutSummaries: 0 },
      'parseConfig only survives in the summary; loadTheme is gone',
    );
    assert.deepEqual(
      t.byKind.error,
      { referenced: 1, kept: 1, keptWithoutSummaries: 1 },
      'an error line matches normalised, as the retention check does',
    );
    assert.equal(frrShare(t.byKind.url), null, 'nothing referenced: no share');
    tally.add(sent, [{ kind: 'symbol', id: 'loadTheme' }]);
    assert.deepEqual(
      tally.totals().overall,
      { referenced: 5, kept: 3, keptWithoutSummaries: 2 },
      'requests weigh by their identifier count',
    );
  });

  it('is 1 over a replay that compacts nothing, on exactly the forward references', async () => {
    const r = await replay(prepare(TINY), { window: 200_000, policy: policy('default') });
    assert.deepEqual(r.frr.overall, { referenced: 4, kept: 4, keptWithoutSummaries: 4 });
    assert.equal(r.frr.byKind.path.referenced, 2);
  });
});
