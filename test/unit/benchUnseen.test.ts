import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WINDOWS } from '../../bench/replayAll';
import { parseUnseenArgs, REPO_ROOT, UNSEEN_POLICIES } from '../../bench/unseen/args';
import { casesMatching, UNSEEN_CASES } from '../../bench/unseen/cases';
import { caseContext } from '../../bench/unseen/context';
import { generateUnseen, type GeneratedTranscript } from '../../bench/unseen/generate';
import { problemLine } from '../../bench/unseen/report';
import { replayUnseen } from '../../bench/unseen/run';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';

/**
 * `npm run bench -- unseen`: sessions the pipeline has not seen, generated from the fixtures or
 * from scratch. A cheap subset — two platform model ids, the structural warts, and a session
 * whose every usage is null — is generated twice (the same bytes, whatever the order) and
 * replayed under the default policy at 200k: no invalid request, no overflow, and the session
 * with no request is skipped with its reason rather than counted as rows of zeros.
 */
describe('bench unseen: generated sessions we have not seen', function () {
  this.timeout(120_000);
  const names = ['05-all-usage-null', '08-structural-warts-sonnet', '17-model-id-bedrock', '17-model-id-openrouter'];
  const cases = UNSEEN_CASES.filter((c) => names.includes(c.name));
  const tokenizer = createTiktokenTokenizer();
  const dirs: string[] = [];
  let generated: GeneratedTranscript[] = [];

  before(() => {
    const dir = mkdtempSync(join(tmpdir(), 'unseen-a-'));
    dirs.push(dir);
    generated = generateUnseen(dir, cases, undefined, caseContext(tokenizer));
  });

  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('has 43 cases of unique names, sorted, each file named after its case', () => {
    const all = UNSEEN_CASES.map((c) => c.name);
    assert.equal(all.length, 43);
    assert.equal(new Set(all).size, 43);
    assert.deepEqual(all, [...all].sort());
    assert.deepEqual(
      casesMatching('17-model-id').map((c) => c.name),
      ['17-model-id-bedrock', '17-model-id-openrouter', '17-model-id-vertex'],
    );
    assert.deepEqual(
      generated.map((g) => g.name),
      names,
    );
    for (const g of generated) assert.ok(g.file.endsWith(`${g.name}.transcript.jsonl`), g.file);
  });

  it('writes the same bytes when generated again, in the other order, with a fresh context', () => {
    const dir = mkdtempSync(join(tmpdir(), 'unseen-b-'));
    dirs.push(dir);
    const again = generateUnseen(dir, [...cases].reverse(), undefined, caseContext(tokenizer));
    for (const g of generated) {
      const twin = again.find((a) => a.name === g.name);
      assert.ok(twin, g.name);
      assert.ok(readFileSync(g.file).equals(readFileSync(twin.file)), `${g.name} differs between two runs`);
      assert.equal(twin.requests, g.requests);
    }
    // The derived sessions keep the fixture's requests, plus the ones the warts add.
    assert.equal(generated.find((g) => g.name === '17-model-id-bedrock')?.requests, 431);
    assert.ok((generated.find((g) => g.name === '08-structural-warts-sonnet')?.requests ?? 0) > 431);
  });

  it('replays them under the default policy at 200k: no invalid request, no overflow; no request at all is skipped', async () => {
    const lines: string[] = [];
    const report = await replayUnseen(generated, {
      windows: [200_000],
      policies: ['default'],
      tokenizer,
      print: (l) => void lines.push(l),
      progress: () => undefined,
    });
    assert.deepEqual(
      report.rows.map((r) => r.transcript),
      names.filter((n) => n !== '05-all-usage-null'),
    );
    for (const r of report.rows) {
      assert.equal(r.invalid, 0, `${r.transcript}: invalid requests`);
      assert.equal(r.overflows, 0, `${r.transcript}: overflows`);
      assert.ok(r.requests > 400 && r.cost_usd !== null && r.cost_usd > 0, JSON.stringify(r));
      assert.ok(r.frr_referenced > 0 && r.frr_no_summary !== null, `${r.transcript}: recall measured`);
      assert.ok(r.frr_no_summary >= 0 && r.frr_no_summary <= 1, JSON.stringify(r));
      assert.ok(r.frr_recent !== null && r.frr_recent > 0 && r.frr_recent <= 1, JSON.stringify(r));
    }
    // Bedrock and OpenRouter ids are the same session: the same figures.
    const [bedrock, openrouter] = ['17-model-id-bedrock', '17-model-id-openrouter'].map((n) =>
      report.rows.find((r) => r.transcript === n),
    );
    assert.ok(bedrock && openrouter);
    assert.deepEqual({ ...bedrock, transcript: '' }, { ...openrouter, transcript: '' });
    assert.equal(report.skipped.length, 1);
    assert.equal(report.skipped[0]?.transcript, '05-all-usage-null');
    assert.match(report.skipped[0]?.error ?? '', /no usage record of a request/);
    assert.ok(lines.some((l) => l.startsWith('SKIPPED 05-all-usage-null: ')));
    assert.ok(
      lines.some((l) => /^08-structural-warts-sonnet\s+200k\s+default\s+\d+\s+0\s+0\s/.test(l)),
      lines.join('\n'),
    );
    assert.equal(
      problemLine(report.rows, ['default']),
      'default-policy replays with an overflow or an invalid request: none',
    );
    assert.deepEqual(report.endPoints, [], 'no end points without the baseline to set them against');
    assert.ok(!lines.some((l) => l.startsWith('Where the session ends')));
  });

  it('names the default rows with an overflow or an invalid request', () => {
    const row = {
      transcript: 'x',
      window: 100_000,
      requests: 3,
      peak: 1,
      compactions: 0,
      cost_usd: 1,
      frr_no_summary: null,
      frr_referenced: 0,
      frr_recent: null,
    };
    const rows = [
      { ...row, policy: 'default', overflows: 1, invalid: 0 },
      { ...row, policy: 'baseline', overflows: 2, invalid: 0 },
      { ...row, transcript: 'y', window: 200_000, policy: 'default', overflows: 0, invalid: 2 },
    ];
    assert.equal(
      problemLine(rows, ['default', 'baseline']),
      'default-policy replays with an overflow or an invalid request: x at 100k (1 overflow, 0 invalid requests); y at 200k (0 overflows, 2 invalid requests)',
    );
    assert.match(problemLine(rows, ['baseline']), /none \(the default policy was not run\)/);
  });

  it('parses its arguments, and refuses bad ones saying which', () => {
    assert.deepEqual(parseUnseenArgs([]), { windows: WINDOWS, policies: UNSEEN_POLICIES });
    assert.deepEqual(
      parseUnseenArgs(['--out', join(tmpdir(), 'u'), '--only', '17-', '--windows', '64000', '--policies', 'default']),
      { out: join(tmpdir(), 'u'), only: '17-', windows: [64_000], policies: ['default'] },
    );
    for (const [args, pattern] of [
      [['--out', join(REPO_ROOT, 'out')], /inside the repository/],
      [['--out', REPO_ROOT], /inside the repository/],
      [['--only', 'no-such-case'], /no case name contains it/],
      [['--windows', '100k'], /got "100k"/],
      [['--policies', 'default,nope'], /unknown policy "nope"/],
      [['--only'], /--only needs a value/],
      [['--frobnicate'], /unknown option --frobnicate/],
      [['stray'], /unexpected argument "stray"/],
    ] as const) {
      const r = parseUnseenArgs(args);
      assert.ok('error' in r, JSON.stringify(args));
      assert.match(r.error, pattern);
    }
  });
});
