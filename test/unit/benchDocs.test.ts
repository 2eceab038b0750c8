import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BEGIN,
  between,
  docsDrift,
  embeddedJson,
  END,
  fullTables,
  jsonComment,
  ratio,
  renderDocs,
  stamp,
  summaryTable,
  TABLES_BEGIN,
  TABLES_END,
  tableInput,
  type ReplayAllJson,
} from '../../bench/readmeTable';

const root = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** A run as replay-all writes it: more fields than the tables read, and a breakdown for every policy. */
const run = {
  rows: ['default', 'baseline', 'claude-code', 'server-clear', 'rolling'].flatMap((policy, i) =>
    [100_000, 200_000].map((window) => ({
      transcript: 'test/fixtures/real-session-a--b.transcript.jsonl',
      window,
      policy,
      requests: 120,
      overflows: policy === 'rolling' ? 1 : 0,
      invalid: 0,
      peak: 0.9,
      compactions: 3,
      cost_usd: 5 + i,
      cost_ratio: policy === 'baseline' ? 1 : 0.7 + i / 10,
      floor_ratio: 0.31,
      frr: 0.99,
      frr_no_summary: 0.96 + i / 100,
    })),
  ),
  breakdown: ['default', 'baseline'].map((policy) => ({
    transcript: 'test/fixtures/real-session-a--b.transcript.jsonl',
    window: 100_000,
    policy,
    read: 2,
    write_growth: 1,
    write_compaction: 0.5,
    write_server: 0,
    write_ttl: 0.25,
    write_miss: 0,
    input: 0.1,
    output: 1,
    summariser: 0.05,
  })),
  summary_carry: {
    keep: 0.08,
    derived_keep: 0.08,
    real_share: 0.6,
    scripted_share: 0.55,
    rows: [{ transcript: 'a', compactions: 2, summaryOnly: 20, real: 12, scripted: 11 }],
  },
  bounds: [
    {
      transcript: 'test/fixtures/real-session-a--b.transcript.jsonl',
      window: 100_000,
      target_frr: 0.95,
      keep_tokens: 30_000,
      frr: 0.955,
      cost_ratio: 0.8,
    },
  ],
  end_points: [
    {
      transcript: 'test/fixtures/real-session-a--b.transcript.jsonl',
      window: 100_000,
      ends: 40,
      at_end: 0.7,
      min: 0.65,
      median: 0.8,
      max: 1.0021,
      over: 0.05,
    },
  ],
  length_sensitivity: [
    {
      transcript: 'test/fixtures/real-session-a--b.transcript.jsonl',
      window: 100_000,
      cost_ratio: 1.0031,
      frr_no_summary: 0.95,
      baseline_frr_no_summary: 0.98,
    },
    {
      transcript: 'test/fixtures/real-session-a--b.transcript.jsonl',
      window: 200_000,
      cost_ratio: 0.7,
      frr_no_summary: 0.97,
      baseline_frr_no_summary: 0.98,
    },
  ],
  meta: { date: '2026-11-29', commit: 'abc1234', machine: { os: 'Linux 6.1 x64', cpus: '8 × Some CPU' } },
} as unknown as ReplayAllJson;

const readme = `# X\n\n## Benchmarks\n\nintro\n\n${BEGIN}\nold summary\n${END}\n\nlink\n`;
const benchmarks = `# Benchmarks\n\nprose\n\n${TABLES_BEGIN}\nold tables\n${TABLES_END}\n\nmore prose\n`;

describe('the benchmark docs are generated from one replay-all run (bench/readmeTable.ts)', () => {
  it('README.md and docs/benchmarks.md state exactly what the generator renders from the JSON the docs embed', () => {
    const drift = docsDrift(read('README.md'), read('docs/benchmarks.md'));
    assert.deepEqual(
      drift,
      [],
      'a benchmark figure in the docs is not what its run gives: regenerate them with ' +
        '`npm run bench -- replay-all > /tmp/replay-all.txt && npm run docs:bench -- /tmp/replay-all.txt`, never by hand',
    );
    const json = embeddedJson(between(read('docs/benchmarks.md'), TABLES_BEGIN, TABLES_END) ?? '');
    assert.ok(!('error' in json), 'docs/benchmarks.md embeds the run');
    assert.deepEqual(tableInput(json), json, 'the embedded JSON is the part of the run the tables read, nothing else');
    assert.ok(read('README.md').includes('](docs/benchmarks.md)'), 'the README links to the full tables');
  });

  it('catches a figure edited by hand, in either file, and missing markers or JSON', () => {
    const next = renderDocs(run, readme, benchmarks);
    assert.ok(!('error' in next));
    assert.deepEqual(docsDrift(next.readme, next.benchmarks), []);
    const handReadme = next.readme.replace('**0.70**', '**0.69**');
    assert.notEqual(handReadme, next.readme);
    assert.match(docsDrift(handReadme, next.benchmarks).join('\n'), /^README\.md, line 5 .*\*\*0\.69\*\*/);
    const handTables = next.benchmarks.replace('| 5.00 |', '| 4.99 |');
    assert.notEqual(handTables, next.benchmarks);
    assert.match(docsDrift(next.readme, handTables).join('\n'), /^docs\/benchmarks\.md, line \d+ .*4\.99/);
    assert.equal(docsDrift(next.readme, benchmarks.replace(TABLES_BEGIN, '')).length, 1);
    assert.match(docsDrift(next.readme, benchmarks)[0] ?? '', /no <!-- replay-all:json/);
    assert.match(docsDrift(readme.replace(BEGIN, ''), next.benchmarks)[0] ?? '', /README\.md has no/);
  });

  it('writes the summary into the README and the JSON and the tables into docs/benchmarks.md, nothing else', () => {
    const next = renderDocs(run, readme, benchmarks);
    assert.ok(!('error' in next));
    assert.ok(next.readme.startsWith('# X\n\n## Benchmarks\n\nintro\n\n') && next.readme.endsWith(`${END}\n\nlink\n`));
    assert.equal(between(next.readme), summaryTable(tableInput(run)));
    assert.ok(next.benchmarks.startsWith('# Benchmarks\n\nprose\n\n') && next.benchmarks.endsWith('\n\nmore prose\n'));
    const tables = between(next.benchmarks, TABLES_BEGIN, TABLES_END) ?? '';
    assert.ok(tables.startsWith('<!-- replay-all:json {"rows":'));
    assert.ok(tables.endsWith(fullTables(run)));
    assert.ok('error' in renderDocs(run, readme, 'no markers'));
    assert.ok('error' in renderDocs(run, 'no markers', benchmarks));
  });

  it('renders from the table input what it renders from the whole run', () => {
    const input = tableInput(run);
    assert.equal(fullTables(input), fullTables(run));
    assert.equal(summaryTable(input), summaryTable(run));
    assert.equal(input.breakdown?.length, 1, 'only the default policy’s breakdown is read');
    assert.ok(!('peak' in (input.rows[0] ?? {})), 'fields no table reads are left out');
  });

  it('summarises each window: mean ratios with the default’s range and its end points’ medians, mean FRR, overflows over every policy', () => {
    const lines = summaryTable(run).split('\n');
    assert.equal(
      lines[0],
      'Replayed 2026-11-29 on commit abc1234 (Linux 6.1 x64; 8 × Some CPU): 1 real sessions, 10 replays (`npm run bench -- replay-all`, written here by `npm run docs:bench`).',
    );
    assert.equal(lines[4], '| 100k | **0.70** (0.70–0.70) | 0.80 | 0.90 | 1.00 | 96.0 % (97.0 %) | 1 / 0 |');
    const { end_points: _ends, ...old } = run;
    assert.equal(
      summaryTable(old).split('\n')[4],
      '| 100k | **0.70** (0.70–0.70) | — | 0.90 | 1.00 | 96.0 % (97.0 %) | 1 / 0 |',
    );
    assert.equal(lines.length, 6);
  });

  it('writes a ratio near 1.00 with the decimals that keep it apart from 1.00', () => {
    assert.deepEqual([0.78, 1, 1.0021, 0.9968, 1.0004, 0.9996, null].map(ratio), [
      '0.78',
      '1.00',
      '1.002',
      '0.997',
      '1.0004',
      '0.9996',
      '—',
    ]);
  });

  it('tables the default’s ratio had each session ended earlier, three decimals near 1.00', () => {
    const lines = fullTables(run).split('\n');
    const at = lines.findIndex((l) => l.startsWith('| transcript | window | at its end |'));
    assert.ok(at > 0, 'the end-point table follows the main one');
    assert.equal(lines[at + 2], '| a--b | 100k | 0.70 | 0.80 | 0.65–1.002 | 5 % of 40 |');
    const { end_points: _ends, ...old } = run;
    assert.ok(
      !fullTables(old).includes('at its end'),
      'a run saved before replay-all measured end points has no such table',
    );
  });

  it('tables the default and the baseline with summaries as long as the prompt asks, flagging a ratio over 1.00 and lost FRR', () => {
    const lines = fullTables(run).split('\n');
    const at = lines.findIndex((l) => l.startsWith('| transcript | window | default ÷ baseline | FRR w/o summaries'));
    assert.ok(at > 0, 'the summary-length table follows the main one');
    assert.equal(lines[at + 2], '| a--b | 100k | 1.003 ✗ | 95.0 % (98.0 %) ✗ |');
    assert.equal(lines[at + 3], '| a--b | 200k | 0.70 | 97.0 % (98.0 %) |');
    assert.equal(lines[at + 4], '| **mean** | 100k | **1.003** | 1 over 1.00, 1 more than 2 points below |');
    assert.equal(lines[at + 5], '| **mean** | 200k | **0.70** | 0 over 1.00, 0 more than 2 points below |');
    const { length_sensitivity: _s, ...old } = run;
    assert.ok(!fullTables(old).includes('as long as the prompt asks'), 'a run saved before it has no such table');
  });

  it('stamps the run it shows, and says unknown for a run saved before replay-all wrote its meta', () => {
    assert.equal(stamp(run.meta), 'Replayed 2026-11-29 on commit abc1234 (Linux 6.1 x64; 8 × Some CPU)');
    assert.equal(stamp(undefined), 'Replayed on an unknown date on commit unknown (unknown OS; unknown CPUs)');
    assert.equal(
      stamp({
        date: '2026-11-29',
        commit: null,
        machine: { os: 'Linux', cpus: '' },
      } as unknown as ReplayAllJson['meta']),
      'Replayed 2026-11-29 on commit unknown (Linux; unknown CPUs)',
    );
    const { meta: _meta, ...old } = run;
    assert.match(fullTables(old).split('\n')[0] ?? '', /^Replayed on an unknown date on commit unknown/);
  });

  it('embeds the JSON in a comment nothing in it can close', () => {
    const tricky = { ...run, meta: { ...run.meta, machine: { os: 'a --> b', cpus: '<!-- x -->' } } } as ReplayAllJson;
    const comment = jsonComment(tricky);
    assert.equal(comment.indexOf('-->'), comment.length - 3, 'the only --> closes the comment');
    assert.ok(!comment.slice(4, -3).includes('--'), 'no -- inside an HTML comment');
    assert.deepEqual(embeddedJson(`before\n${comment}\nafter`), tricky);
    assert.ok('error' in embeddedJson('<!-- replay-all:json {not json} -->'));
  });
});
