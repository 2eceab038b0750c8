import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolOutcome } from '../../src/core/tools/toolRunner';
import type { Approver } from '../../src/host/approvals/approval';
import { WorkspaceToolRunner } from '../../src/host/tools/workspaceToolRunner';
import { cleanTempDirs, ScriptedApprover, tempDir, writeTree } from './support/toolsWorkspace';

const text = (o: ToolOutcome) => (typeof o.content === 'string' ? o.content : '');
const live = () => new AbortController().signal;

describe('tools: WorkspaceToolRunner', () => {
  let ws: string;
  beforeEach(async () => {
    ws = await tempDir();
    await writeTree(ws, { 'a.txt': 'hello\nworld\n', 'big.txt': 'x'.repeat(3000), 'secret/k.txt': 'k' });
  });
  afterEach(cleanTempDirs);

  const runner = (over: Partial<ConstructorParameters<typeof WorkspaceToolRunner>[0]> = {}) =>
    new WorkspaceToolRunner({
      roots: [ws],
      approver: new ScriptedApprover(),
      runCommandEnabled: () => false,
      filesExclude: () => ({}),
      ...over,
    });

  it('dispatches by name and times the call', async () => {
    let t = 1000;
    const r = runner({ now: () => (t += 7) });
    const out = await r.run({ id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } }, live());
    assert.deepEqual(out, { content: '     1\thello\n     2\tworld', isError: false, durationMs: 7 });
  });

  it('turns invalid input and unknown tools into error outcomes', async () => {
    const bad = await runner().run({ id: 't', name: 'read_file', input: { file: 'a.txt' } }, live());
    assert.equal(bad.isError, true);
    assert.match(text(bad), /^read_file: unknown parameter "file"/);
    const unknown = await runner().run({ id: 't', name: 'delete_everything', input: {} }, live());
    assert.equal(unknown.isError, true);
    assert.match(text(unknown), /^Unknown tool "delete_everything"/);
  });

  it('turns an exception thrown inside a tool into an error outcome naming the tool', async () => {
    const throwing: Approver = {
      approveEdit: async () => {
        throw new Error('dialog exploded');
      },
      approveCommand: async () => ({ approved: false }),
    };
    const out = await runner({ approver: throwing }).run(
      { id: 't', name: 'edit_file', input: { path: 'a.txt', old_string: 'hello', new_string: 'bye' } },
      live(),
    );
    assert.equal(out.isError, true);
    assert.match(text(out), /^edit_file failed: dialog exploded\. Check the input and try again/);
    assert.equal(typeof out.durationMs, 'number');
    const badSetting = await runner({
      filesExclude: () => {
        throw new TypeError('settings unreadable');
      },
    }).run({ id: 't', name: 'list_files', input: {} }, live());
    assert.match(text(badSetting), /^list_files failed: settings unreadable/);
  });

  it('reads settings on every call (run_command enablement, files.exclude)', async () => {
    let enabled = false;
    let exclude: Record<string, boolean> = {};
    const r = runner({ runCommandEnabled: () => enabled, filesExclude: () => exclude });
    assert.match(
      text(await r.run({ id: 't', name: 'run_command', input: { command: 'echo hi' } }, live())),
      /run_command is disabled/,
    );
    enabled = true;
    const ran = await r.run({ id: 't', name: 'run_command', input: { command: 'echo hi' } }, live());
    assert.equal(ran.isError, false, text(ran));
    assert.match(text(ran), /^hi\n/);
    assert.match(text(await r.run({ id: 't', name: 'list_files', input: {} }, live())), /secret\//);
    exclude = { secret: true };
    assert.doesNotMatch(text(await r.run({ id: 't', name: 'list_files', input: {} }, live())), /secret\//);
  });

  it('enforces the result cap on every tool', async () => {
    const out = await runner({ limits: { maxResultChars: 500, readMaxLineChars: 5000 } }).run(
      { id: 't', name: 'read_file', input: { path: 'big.txt' } },
      live(),
    );
    assert.ok(text(out).length <= 500, `length ${text(out).length}`);
    assert.match(text(out), /cut from the middle/);
  });

  it('returns at once when already stopped, and when no folder is open', async () => {
    const abort = new AbortController();
    abort.abort();
    const stopped = await runner().run({ id: 't', name: 'read_file', input: { path: 'a.txt' } }, abort.signal);
    assert.deepEqual([stopped.isError, text(stopped)], [true, 'read_file: stopped by the user before it finished.']);
    const none = await runner({ roots: () => [] }).run({ id: 't', name: 'list_files', input: {} }, live());
    assert.match(text(none), /no folder is open/);
    const gone = await runner({ roots: [join(ws, 'missing')] }).run(
      { id: 't', name: 'read_file', input: { path: 'a.txt' } },
      live(),
    );
    assert.equal(gone.isError, true);
  });

  it("never hands back a lone surrogate: one echoed from the model's input becomes U+FFFD", async () => {
    const wellFormed = (s: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
    for (const call of [
      { name: 'read_file', input: { path: 'missing\ud800.txt' } },
      { name: 'tool\ud83d', input: {} },
    ]) {
      const out = await runner().run({ id: 't', ...call }, live());
      assert.ok(wellFormed(text(out)), JSON.stringify(text(out)));
      assert.match(text(out), /\ufffd/, 'the broken character is visible as U+FFFD');
    }
    const ok = await runner().run({ id: 't', name: 'read_file', input: { path: 'a.txt' } }, live());
    assert.equal(text(ok), '     1\thello\n     2\tworld', 'clean output is unchanged');
  });
});

describe('tools: layering', () => {
  const importsVscode = (dir: string) =>
    readdirSync(dir).filter((f) =>
      /(?:from|import|require\()\s*['"]vscode['"]/.test(readFileSync(join(dir, f), 'utf8')),
    );
  it('nothing in src/host/tools imports vscode (it all runs under plain mocha)', () => {
    assert.deepEqual(importsVscode(join(__dirname, '..', '..', 'src', 'host', 'tools')), []);
  });
  it('only chatApprover.ts in src/host/approvals imports vscode', () => {
    assert.deepEqual(importsVscode(join(__dirname, '..', '..', 'src', 'host', 'approvals')), ['chatApprover.ts']);
  });
});
