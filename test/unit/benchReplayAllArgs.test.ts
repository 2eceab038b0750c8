import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseReplayAllArgs, runReplayAll, WINDOWS } from '../../bench/replayAll';
import { toolSession } from './support/benchTranscripts';

/** `npm run bench -- replay-all [dir] [--windows N,…]`: its arguments, and the errors that name what is wrong. */
describe('bench replay-all: arguments, and a transcript it cannot read', () => {
  it('defaults to test/fixtures at 100k and 200k', () => {
    assert.deepEqual(parseReplayAllArgs([]), { dir: 'test/fixtures', windows: WINDOWS });
    assert.deepEqual(WINDOWS, [100_000, 200_000]);
  });

  it('takes a folder and a list of windows, in either order', () => {
    assert.deepEqual(parseReplayAllArgs(['sessions', '--windows', '100000,1_000_000']), {
      dir: 'sessions',
      windows: [100_000, 1_000_000],
    });
    assert.deepEqual(parseReplayAllArgs(['--windows', '64000', 'sessions']), { dir: 'sessions', windows: [64_000] });
  });

  it('refuses a bad window list, an unknown option and a second folder, saying which', () => {
    for (const [args, pattern] of [
      [['--windows'], /--windows takes whole token counts/],
      [['--windows', '100k'], /got "100k"/],
      [['--windows', '500'], /at least 1000/],
      [['--window', '100000'], /unknown option --window/],
      [['a', 'b'], /one folder only/],
    ] as const) {
      const r = parseReplayAllArgs(args);
      assert.ok('error' in r, JSON.stringify(args));
      assert.match(r.error, pattern);
    }
  });

  it('replays the transcripts it can read, names the one it cannot, and exits 1', async function () {
    this.timeout(60_000);
    const dir = mkdtempSync(join(tmpdir(), 'replay-all-'));
    try {
      writeFileSync(join(dir, 'good.transcript.jsonl'), toolSession(12).join('\n'));
      writeFileSync(join(dir, 'broken.transcript.jsonl'), '{"kind":"message"');
      writeFileSync(
        join(dir, 'chat-only.transcript.jsonl'),
        JSON.stringify({ kind: 'message', message: { role: 'user', content: 'hi' } }),
      );
      const out: string[] = [];
      const log = console.log;
      const err = process.stderr.write.bind(process.stderr);
      console.log = (...xs: unknown[]) => void out.push(xs.map(String).join(' '));
      process.stderr.write = () => true;
      let code: number;
      try {
        code = await runReplayAll([dir, '--windows', '64000']);
      } finally {
        console.log = log;
        process.stderr.write = err;
      }
      assert.equal(code, 1);
      const last = JSON.parse(out.at(-1) as string) as {
        rows: { transcript: string }[];
        skipped: { transcript: string; error: string }[];
        length_sensitivity: { transcript: string; window: number; cost_ratio: number | null }[];
      };
      assert.ok(last.rows.length > 0 && last.rows.every((r) => r.transcript.endsWith('good.transcript.jsonl')));
      assert.equal(last.skipped.length, 2);
      assert.match(last.skipped[0]?.error ?? '', /broken\.transcript\.jsonl:1: not valid JSON/);
      // Rows of zeros would read as "no overflow": a file with nothing to replay is named instead.
      assert.match(last.skipped[1]?.error ?? '', /chat-only\.transcript\.jsonl: no usage record of a request/);
      assert.ok(out.some((l) => l.startsWith('SKIPPED ') && l.includes('broken.transcript.jsonl')));
      // The default and the baseline once more, with summaries as long as the prompt asks.
      assert.equal(last.length_sensitivity.length, 1);
      assert.ok(last.length_sensitivity[0]?.transcript.endsWith('good.transcript.jsonl'));
      assert.equal(last.length_sensitivity[0]?.window, 64_000);
      assert.ok(Number.isFinite(last.length_sensitivity[0]?.cost_ratio));
      assert.ok(out.some((l) => l.startsWith('Summary length sensitivity:')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
