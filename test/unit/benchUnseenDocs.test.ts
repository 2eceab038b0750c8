import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { between } from '../../bench/readmeTable';
import {
  UNSEEN_BEGIN,
  UNSEEN_END,
  unseenBlock,
  unseenDrift,
  unseenJson,
  unseenSummary,
  type UnseenJson,
} from '../../bench/unseenDocs';

const row = (transcript: string, window: number, policy: string, cost: number | null, overflows = 0) => ({
  transcript,
  window,
  policy,
  requests: 100,
  overflows,
  invalid: 0,
  peak: 0.8,
  compactions: 2,
  cost_usd: cost,
});

/** Three sessions at one window: one where the default is over the baseline, one whose baseline overflows. */
const run: UnseenJson = {
  rows: [
    row('a', 100_000, 'default', 1.1),
    row('a', 100_000, 'baseline', 1),
    row('b', 100_000, 'default', 0.5),
    row('b', 100_000, 'baseline', 1),
    row('c', 100_000, 'default', 0.1),
    row('c', 100_000, 'baseline', 1, 7),
  ],
  skipped: [{ transcript: 'empty' }],
  meta: { date: '2026-11-29', commit: 'abc1234', machine: { os: 'Linux', cpus: '2 × X' } },
};

describe('the unseen summary of docs/benchmarks.md (bench/unseenDocs.ts)', () => {
  it('compares the default with the baseline only where the baseline fits, and names the worst', () => {
    const text = unseenSummary(run);
    assert.match(text, /^Replayed 2026-11-29 on commit abc1234 \(Linux; 2 × X\): 3 generated sessions, 6 replays/);
    const line = text.split('\n').find((l) => l.startsWith('| 100k'));
    assert.equal(
      line,
      '| 100k | 3 / 3 | 0 / 0 | 7 / 0 (1) | 0.80, 0.80 (2) | 1.10 `a` | 1 | — |',
      'no recall in an older run',
    );
    assert.match(text, /Skipped \(no usage record to replay, or the replay threw\): `empty`\./);
  });

  it("names the sessions whose recall without summaries is more than 2 points below the baseline's, where it fits", () => {
    const frr = (r: ReturnType<typeof row>, share: number | null, referenced = 40) => ({
      ...r,
      frr_no_summary: share,
      frr_referenced: referenced,
    });
    const withRecall: UnseenJson = {
      ...run,
      rows: [
        frr(row('a', 100_000, 'default', 1.1), 0.9),
        frr(row('a', 100_000, 'baseline', 1), 0.95),
        frr(row('b', 100_000, 'default', 0.5), 0.94),
        frr(row('b', 100_000, 'baseline', 1), 0.95),
        frr(row('c', 100_000, 'default', 0.1), 0.1, 2),
        frr(row('c', 100_000, 'baseline', 1, 7), 1, 2),
        frr(row('d', 100_000, 'default', 0.5), null, 0),
        frr(row('d', 100_000, 'baseline', 1), null, 0),
      ],
    };
    const line = unseenSummary(withRecall)
      .split('\n')
      .find((l) => l.startsWith('| 100k'));
    assert.ok(line?.endsWith('| 1: `a` 90.0 % (95.0 %) of 40 |'), line);
    // A run whose rows carry the recent-reference share names it beside the loss, and keeps it.
    const recentRows = withRecall.rows.map((r) => (r.transcript === 'a' ? { ...r, frr_recent: 0.514 } : r));
    const withRecent = unseenSummary({ ...withRecall, rows: recentRows })
      .split('\n')
      .find((l) => l.startsWith('| 100k'));
    assert.ok(withRecent?.endsWith('| 1: `a` 90.0 % (95.0 %) of 40, 51 % recent |'), withRecent);
    const keptRecent = unseenJson(JSON.stringify({ ...withRecall, rows: recentRows }));
    assert.ok(!('error' in keptRecent));
    assert.equal(keptRecent.rows[0]?.frr_recent, 0.514);
    const none = unseenSummary({ ...withRecall, rows: withRecall.rows.filter((r) => r.transcript !== 'a') });
    assert.ok(none.split('\n').some((l) => l.startsWith('| 100k') && l.endsWith('| none |')));
    const kept = unseenJson(JSON.stringify(withRecall));
    assert.ok(!('error' in kept));
    assert.equal(kept.rows[0]?.frr_no_summary, 0.9, 'the docs keep the recall they render');
    assert.equal(kept.rows[0]?.frr_referenced, 40);
  });

  it('reads the last JSON line of a saved run, keeping only what the summary reads', () => {
    const output = `table\n{"not":"it"}\n${JSON.stringify(run)}\n`;
    const json = unseenJson(output);
    assert.ok(!('error' in json));
    assert.deepEqual(Object.keys(json.rows[0] ?? {}).sort(), [
      'cost_usd',
      'invalid',
      'overflows',
      'policy',
      'transcript',
      'window',
    ]);
    assert.match((unseenJson('no json here') as { error: string }).error, /npm run bench -- unseen/);
  });

  it('docs/benchmarks.md states what its embedded run renders, and a changed figure is caught', () => {
    const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'benchmarks.md'), 'utf8');
    assert.deepEqual(unseenDrift(doc), []);
    const block = between(doc, UNSEEN_BEGIN, UNSEEN_END) ?? '';
    assert.ok(block.length > 0);
    const tampered = doc.replace(
      /\| (\d+) \| ([^|\n]*) \|\n/,
      (_m, n: string, rest: string) => `| ${Number(n) + 1} | ${rest} |\n`,
    );
    assert.notEqual(tampered, doc);
    assert.equal(unseenDrift(tampered).length, 1);
    assert.equal(unseenBlock(run).split('\n')[0]?.startsWith('<!-- unseen:json '), true);
  });
});
