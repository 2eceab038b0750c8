import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { BEGIN, END, fullTables, replayAllJson, withTable, type TableRow } from '../../bench/readmeTable';

const row = (
  transcript: string,
  window: number,
  policy: string,
  cost_ratio: number,
  extra: Partial<TableRow> = {},
): TableRow => ({
  transcript,
  window,
  policy,
  overflows: 0,
  invalid: 0,
  cost_usd: cost_ratio * 10,
  cost_ratio,
  floor_ratio: 0.3,
  frr_no_summary: 0.97,
  ...extra,
});

describe('the full benchmark tables come from a replay-all run (bench/readmeTable.ts)', () => {
  const meta = { date: '2026-11-29', commit: 'abc1234', machine: { os: 'Linux', cpus: '2 × CPU' } };
  const json = {
    rows: [
      row('test/fixtures/real-session-a.transcript.jsonl', 100_000, 'default', 0.8),
      row('test/fixtures/real-session-a.transcript.jsonl', 100_000, 'baseline', 1, { frr_no_summary: 0.98 }),
      row('test/fixtures/real-session-a.transcript.jsonl', 100_000, 'claude-code', 0.95, { overflows: 2 }),
      row('test/fixtures/real-session-b.transcript.jsonl', 100_000, 'default', 0.9, { invalid: 1 }),
      row('test/fixtures/real-session-b.transcript.jsonl', 100_000, 'baseline', 1),
    ],
    meta,
  };

  it('writes one line per transcript and window from the rows, and the mean with its range', () => {
    const t = fullTables(json);
    const lines = t.split('\n');
    assert.equal(
      lines[0],
      "Replayed 2026-11-29 on commit abc1234 (Linux; 2 × CPU). Ratios are cost ÷ the baseline's on the same transcript and window.",
    );
    const a = lines.find((l) => l.startsWith('| a |'));
    assert.ok(a, t);
    assert.match(a, /\| a \| 100k \| 8\.00 \| 0\.80 \| 0\.95 \| — \| 0\.30 \| 97\.0 % \(98\.0 %\) \| 2 \/ 0 \|/);
    assert.match(lines.find((l) => l.startsWith('| b |')) ?? '', /\| 0 \/ 1 \|/);
    assert.match(lines.at(-1) ?? '', /^\| \*\*mean\*\* \| 100k \| \| \*\*0\.85\*\* \(0\.80–0\.90\) \|/);
    const carry = fullTables({
      ...json,
      summary_carry: {
        keep: 0.08,
        real_share: 0.594,
        scripted_share: 0.563,
        rows: [{ compactions: 3, summaryOnly: 32 }],
      },
    });
    assert.match(
      carry.split('\n').at(-1) ?? '',
      /^Summary carry: of the 32 identifiers .* 3 real compactions, the real summaries carried 59\.4 %, the scripted summariser 56\.3 % \(it keeps 8\.0 %/,
    );
  });

  it('writes the recency bound of each row beside the default', () => {
    const t = fullTables({
      ...json,
      bounds: [
        {
          transcript: 'test/fixtures/real-session-a.transcript.jsonl',
          window: 100_000,
          target_frr: 0.96,
          keep_tokens: 29_000,
          frr: 0.963,
          cost_ratio: 0.75,
        },
      ],
    });
    assert.match(t, /\| a \| 100k \| 96\.0 % \| newest 29k \(96\.3 %\) \| 0\.75 \| 0\.80 \(97\.0 %\) \|/);
    const none = fullTables({
      ...json,
      bounds: [{ transcript: 'b', window: 100_000, target_frr: null, keep_tokens: null, frr: null, cost_ratio: null }],
    });
    assert.match(none, /\| b \| 100k \| — \| none in the window \| — \|/, 'a bound no tail reaches');
  });

  it('finds the JSON line of a saved run, and says when there is none', () => {
    const out = `table…\n${JSON.stringify(json)}\n`;
    const parsed = replayAllJson(out);
    assert.ok(!('error' in parsed));
    assert.equal(parsed.rows.length, 5);
    assert.ok('error' in replayAllJson('no json here'));
  });

  it('replaces only the text between the markers, which the README has', () => {
    const readme = `intro\n${BEGIN}\nold table\n${END}\noutro\n`;
    assert.equal(withTable(readme, 'new'), `intro\n${BEGIN}\nnew\n${END}\noutro\n`);
    assert.ok(typeof withTable('no markers', 'x') !== 'string');
    const real = readFileSync('README.md', 'utf8');
    assert.ok(real.includes(BEGIN) && real.indexOf(END) > real.indexOf(BEGIN), 'README.md carries the markers');
  });
});
