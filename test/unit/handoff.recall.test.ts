import { strict as assert } from 'node:assert';
import type { CompactionRecord } from '../../src/core/compaction/types';
import { handoffReason, HANDOFF_REWRITES, offerText, summaryRewrites } from '../../src/core/handoff/handoffOffer';
import { pastSources, type PastSession } from '../../src/core/recall/corpus';
import { recallDefinition, runRecall } from '../../src/core/recall/recallTool';
import { encodeEntry, type HeaderEntry } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { migrateEntry } from '../../src/core/session/migrate';
import { testConfig } from './support/builders';
import { Convo } from './support/compactionBuilders';
import { summaryRecord } from './support/handoffFixtures';

/** The old session: turn 1 compacted (a failing test run), turns 2–3 as it was left. */
function oldSession(): PastSession {
  const c = new Convo();
  c.user('Make the parser accept trailing commas')
    .call(
      'run_command',
      { command: 'npm test' },
      'FAIL test/parse.test.ts\nSyntaxError: Unexpected token } in JSON at position 17',
    )
    .say('The JSON parser rejects trailing commas.');
  c.user('Use json5 then')
    .read('src/parse.ts', 'import JSON5 from "json5";\nexport const parse = JSON5.parse;')
    .say('Done.');
  c.user('Thanks').say('You are welcome.');
  return {
    sessionId: '2026-05-01T10-00-00-old001',
    title: 'Trailing commas',
    messages: c.messages.filter((m) => m.turn > 1),
    compactions: [
      {
        record: summaryRecord(
          'cmp_old',
          c.messages.filter((m) => m.turn === 1),
        ),
      },
    ],
  };
}

/** The new session: one compaction of its own. */
function ownCompactions(): { record: CompactionRecord }[] {
  const c = new Convo();
  c.user('Continue').say('Continuing with the json5 parser.');
  return [{ record: summaryRecord('cmp_new', c.messages) }];
}

const ctx = () => ({ compactions: [...ownCompactions(), ...pastSources(oldSession())], spills: [] });

describe('handoff: recall searches the session handed off from', () => {
  it('finds an original of an old compaction, labelled by the old session, and counts no compaction of this one', () => {
    const r = runRecall({ query: 'Unexpected token }' }, ctx());
    assert.equal(r.isError, false);
    assert.match(
      r.text,
      /tool result of run_command · turn 1 · compaction cmp_old · old session "Trailing commas" \(2026-05-01T10-00-00-old001\)/,
    );
    assert.deepEqual(r.compactionIds, [], "the old session's compactions are not this session's to count");
  });

  it('finds what the old session still held when it was left, as its conversation', () => {
    const r = runRecall({ query: 'JSON5.parse' }, ctx());
    assert.match(
      r.text,
      /tool result of read_file · turn 2 · old session "Trailing commas" \(2026-05-01T10-00-00-old001, as it was left\)/,
    );
    const id = /id=(\S+)/.exec(r.text)?.[1];
    assert.ok(id);
    const read = runRecall({ id }, ctx());
    assert.equal(read.isError, false);
    assert.match(read.text, /old session "Trailing commas"/);
    assert.match(read.text, /export const parse = JSON5\.parse;/);
  });

  it('a turn of the old session is read with its id as `compaction`; a bare turn is this session’s', () => {
    const old = runRecall({ turn: 3, compaction: '2026-05-01T10-00-00-old001' }, ctx());
    assert.equal(old.isError, false);
    assert.match(old.text, /Thanks/);
    const own = runRecall({ turn: 1 }, ctx());
    assert.match(own.text, /Continuing with the json5 parser/);
    assert.doesNotMatch(own.text, /Trailing commas/);
  });

  it('a search that finds nothing names the old session among what was searched', () => {
    const r = runRecall({ query: 'kubernetes' }, ctx());
    assert.match(
      r.text,
      /1 compaction \(2 original messages, 1 summary\), 0 saved outputs and the old session "Trailing commas"/,
    );
  });

  it('the bound tool reads the old session through its port, once per call, and a failing read leaves it out', async () => {
    let reads = 0;
    const tool = recallDefinition({
      compactions: ownCompactions,
      past: {
        read: async () => {
          reads++;
          return oldSession();
        },
      },
    });
    const ok = await tool.execute(
      { query: 'trailing commas' },
      { toolUseId: 't1', signal: new AbortController().signal },
    );
    assert.equal(reads, 1);
    assert.match(String(ok.content), /old session "Trailing commas"/);
    const failing = recallDefinition({
      compactions: ownCompactions,
      past: { read: () => Promise.reject(new Error('disk gone')) },
    });
    const r = await failing.execute({ query: 'Continuing' }, { toolUseId: 't2', signal: new AbortController().signal });
    assert.equal(r.isError, false);
    assert.match(String(r.content), /compaction cmp_new/);
  });
});

describe('handoff: when it is offered', () => {
  const config = testConfig({ contextWindow: 100_000, outputReserve: 0, softThreshold: 0.7, hardThreshold: 0.9 });
  const summary = (id: string, folds: boolean): CompactionRecord => {
    const c = new Convo();
    c.user(`q ${id}`).say('a');
    const r = summaryRecord(id, c.messages);
    if (!folds) return r;
    const prev = summaryRecord(`${id}_prev`, c.messages);
    return { ...r, originals: [...(prev.replacement as CompactionRecord['originals']), ...c.messages] };
  };

  it('after a compaction that leaves the conversation at or past the soft threshold', () => {
    const records = [summary('c1', false)];
    const reason = handoffReason({ records, compactions: [], tokensAfter: 75_000, config });
    assert.deepEqual(reason, { kind: 'over-soft', fullness: '75 % of the 100k usable window', softMark: '70 % (70k)' });
    assert.match(
      offerText(reason),
      /^Compaction could not bring the conversation under the soft threshold \(70 % \(70k\)\): it is still 75 % of the 100k usable window\./,
    );
    assert.equal(handoffReason({ records, compactions: [], tokensAfter: 50_000, config }), undefined);
  });

  it('not after the cheap layers or a rewind alone', () => {
    const masked = { ...summary('c1', false), layer: 'mask' as const };
    const rewind = { ...summary('c2', false), layer: 'rewind' as const };
    assert.equal(handoffReason({ records: [masked, rewind], compactions: [], tokensAfter: 95_000, config }), undefined);
  });

  it(`after the rolling summary was rewritten ${HANDOFF_REWRITES} times (in effect)`, () => {
    const rolled = Array.from({ length: HANDOFF_REWRITES }, (_, i) => ({
      record: summary(`r${i}`, true),
      active: true,
    }));
    assert.equal(summaryRewrites(rolled), HANDOFF_REWRITES);
    const last = rolled.at(-1)?.record as CompactionRecord;
    assert.deepEqual(handoffReason({ records: [last], compactions: rolled, tokensAfter: 10_000, config }), {
      kind: 'rewrites',
      rewrites: HANDOFF_REWRITES,
    });
    const restored = rolled.map((c, i) => (i === 0 ? { ...c, active: false } : c));
    assert.equal(handoffReason({ records: [last], compactions: restored, tokensAfter: 10_000, config }), undefined);
    const stacked = rolled.map((c) => ({ ...c, record: summary(c.record.id, false) }));
    assert.equal(summaryRewrites(stacked), 0, 'stacked summaries fold nothing');
  });
});

describe('handoff: the session format', () => {
  const header: HeaderEntry = {
    type: 'header',
    format: 'context-pipeline-session',
    version: 12,
    sessionId: '2026-05-02T09-00-00-new001',
    createdAt: 1,
    model: 'claude-sonnet-4-6',
    workspace: 'demo',
    continuedFrom: { sessionId: '2026-05-01T10-00-00-old001', title: 'Trailing commas' },
  };

  it('a version 12 header names the session it continues and what its note cost (or that it is unknown), and reads back', () => {
    for (const h of [
      header,
      { ...header, continuedFrom: { ...header.continuedFrom!, noteCostUsd: 0.0031 } },
      { ...header, continuedFrom: { ...header.continuedFrom!, noteCostUnknown: true as const } },
    ]) {
      const r = decodeLine(encodeEntry(h));
      assert.ok(r.ok);
      assert.deepEqual(r.entry, h);
    }
    const negative = { ...header, continuedFrom: { ...header.continuedFrom!, noteCostUsd: -1 } };
    assert.equal(decodeLine(encodeEntry(negative)).ok, false, 'a negative cost is damage');
    const notTrue = { ...header, continuedFrom: { ...header.continuedFrom!, noteCostUnknown: false } };
    assert.equal(decodeLine(encodeEntry(notTrue as unknown as HeaderEntry)).ok, false, 'only `true` says unknown');
  });

  it('a version 8, 9, 10 or 11 header reads as version 12 (nothing else changes)', () => {
    for (const version of [8, 9, 10, 11]) {
      const old = { ...header, version } as Record<string, unknown>;
      assert.deepEqual(migrateEntry(old, version), header);
    }
  });

  it('a version 7 header reads as version 12 (nothing else changes); a malformed continuedFrom is damage', () => {
    const v7 = { ...header, version: 7 } as Record<string, unknown>;
    delete v7.continuedFrom;
    const { continuedFrom: _, ...plain } = header;
    assert.deepEqual(migrateEntry(v7, 7), plain);
    const bad = decodeLine(encodeEntry({ ...header, continuedFrom: { sessionId: 'x' } } as unknown as HeaderEntry));
    assert.equal(bad.ok, false);
  });
});
