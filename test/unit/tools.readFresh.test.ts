import { strict as assert } from 'node:assert';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { readFresh } from '../../src/host/tools/readFresh';
import { WorkspaceToolRunner } from '../../src/host/tools/workspaceToolRunner';
import { cleanTempDirs, ScriptedApprover, tempDir, writeTree } from './support/toolsWorkspace';

const SECRET = 'sk-ant-api03-THIS-MUST-NEVER-REACH-THE-MODEL';

describe('tools: reading a file fresh for the re-attach after a compaction', () => {
  let ws: string;
  let outside: string;
  beforeEach(async () => {
    ws = await tempDir();
    outside = await tempDir('cp-outside-');
    await writeTree(ws, {
      'src/a.ts': '\uFEFFexport const a = 1;\n',
      '.env': `ANTHROPIC_API_KEY=${SECRET}\n`,
      'img.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]),
      'big.txt': 'y'.repeat(300_000),
    });
    await writeTree(outside, { 'x.ts': `const leaked = '${SECRET}';\n` });
  });
  afterEach(cleanTempDirs);

  it('reads a workspace file by the path the model wrote (relative, ./, absolute), without its BOM, with its size', async () => {
    for (const p of ['src/a.ts', './src/a.ts', join(ws, 'src/a.ts')]) {
      const r = await readFresh({ roots: [ws] }, p);
      assert.deepEqual(r, { ok: true, text: 'export const a = 1;\n', bytes: 23 }, p);
    }
  });

  it('refuses secrets files (also through a link), paths outside the workspace, folders, binary and missing files, with a reason and never the content', async () => {
    await symlink(join(ws, '.env'), join(ws, 'notes.txt'));
    const cases: Array<[string, RegExp]> = [
      ['.env', /secrets file \(\.env files hold keys and passwords\)/],
      ['notes.txt', /leads to a secrets file/],
      [join(outside, 'x.ts'), /outside the workspace/],
      ['../' + outside.split('/').at(-1) + '/x.ts', /outside the workspace/],
      ['src', /it is a folder/],
      ['img.png', /binary file \(PNG image, 12 B\)/],
      ['gone.ts', /no longer exists/],
    ];
    for (const [p, why] of cases) {
      const r = await readFresh({ roots: [ws] }, p);
      assert.ok(!r.ok, p);
      assert.match(r.reason, why, p);
      assert.ok(!r.reason.includes(SECRET), p);
    }
  });

  it('reads at most its byte limit of a large file but reports the full size', async () => {
    const r = await readFresh({ roots: [ws] }, 'big.txt', 10_000);
    assert.ok(r.ok);
    assert.equal(r.text.length, 10_000);
    assert.equal(r.bytes, 300_000);
  });

  it('the tool runner reads through the current workspace folders, and says so when none is open', async () => {
    let roots: string[] = [ws];
    const runner = new WorkspaceToolRunner({
      roots: () => roots,
      approver: new ScriptedApprover(),
      runCommandEnabled: () => false,
      filesExclude: () => ({}),
    });
    assert.deepEqual(await runner.readFresh('src/a.ts'), { ok: true, text: 'export const a = 1;\n', bytes: 23 });
    roots = [];
    assert.deepEqual(await runner.readFresh('src/a.ts'), { ok: false, reason: 'no folder is open' });
  });
});
