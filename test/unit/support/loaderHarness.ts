/** What the session-loader tests share: a temp session file, and a load that checks what every load promises. */
import { strict as assert } from 'node:assert';
import { promises as fsp, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkInvariants } from '../../../src/core/conversation/invariants';
import { encodeEntry, type SessionEntry } from '../../../src/core/session/entries';
import { loadSession, type LoadResult } from '../../../src/host/sessions/sessionLoader';

/** The fixed "now" of the loader tests. */
export const NOW = Date.UTC(2026, 10, 22, 8, 30, 0);

/** Session file text: one encoded entry a line. */
export const text = (entries: readonly SessionEntry[]): string => entries.map((e) => `${encodeEntry(e)}\n`).join('');

/**
 * A session file in a fresh temp folder per test (mocha hooks registered in the calling
 * `describe`), and `load(content)`: writes it, loads it and checks that the session keeps its
 * invariants, that a repair wrote a byte-identical backup first, and that the result loads
 * cleanly again with the same messages.
 */
export function loaderHarness(prefix: string): {
  readonly dir: () => string;
  readonly file: () => string;
  load(content: string | Buffer): Promise<LoadResult & { ok: true }>;
} {
  let dir = '';
  let file = '';
  beforeEach(async () => {
    dir = await fsp.mkdtemp(join(tmpdir(), prefix));
    file = join(dir, '2026-11-21T23-59-00-abc123.jsonl');
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });
  return {
    dir: () => dir,
    file: () => file,
    async load(content) {
      await fsp.writeFile(file, content);
      const original = readFileSync(file);
      const r = await loadSession(file, { now: () => NOW });
      assert.ok(r.ok, r.ok ? '' : r.error);
      assert.deepEqual(checkInvariants(r.session), []);
      if (r.report)
        assert.ok(
          r.report.backupPath && readFileSync(r.report.backupPath).equals(original),
          'a byte-identical backup is written before the rewrite',
        );
      const again = await loadSession(file, { now: () => NOW + 1 });
      assert.ok(again.ok && again.report === undefined, 'the repaired file loads cleanly');
      assert.deepEqual(again.session.messages, r.session.messages);
      return r;
    },
  };
}
