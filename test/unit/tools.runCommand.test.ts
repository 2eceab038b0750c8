import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { runCommandTool } from '../../src/host/tools/runCommand';
import { waitUntil } from './support/gate';
import {
  cleanTempDirs,
  expectError,
  expectOk,
  ScriptedApprover,
  tempDir,
  toolContext,
  writeTree,
} from './support/toolsWorkspace';

/** Whether a process with this pid is alive (a zombie waiting to be reaped counts as dead). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no /proc (macOS): trust kill(0)
  }
}

/** The pid a command wrote to `bg.pid` in `ws`, once it has (0 until then). */
async function pidFrom(ws: string): Promise<number> {
  return Number((await readFile(join(ws, 'bg.pid'), 'utf8').catch(() => '')).trim()) || 0;
}

/** A run_command timeout the test fires itself (no race with a real 1 s timer); records what it was asked for. */
function manualTimeout() {
  const asked: number[] = [];
  let pending: (() => void) | undefined;
  return {
    asked,
    start: (ms: number, fire: () => void) => {
      asked.push(ms);
      pending = fire;
      return () => (pending = undefined);
    },
    fire: () => pending?.(),
  };
}

(process.platform === 'win32' ? describe.skip : describe)('tools: run_command', () => {
  let ws: string;
  beforeEach(async () => {
    ws = await tempDir();
    await writeTree(ws, { 'sub/marker.txt': 'here' });
  });
  afterEach(cleanTempDirs);

  it('is disabled unless enabled, and says how to enable it', async () => {
    const approver = new ScriptedApprover();
    const text = expectError(await runCommandTool({ command: 'echo hi' }, toolContext([ws]), false, approver));
    assert.match(
      text,
      /run_command is disabled\. The user can enable it with the setting `contextPipeline\.enableRunCommand`/,
    );
    assert.equal(approver.commands.length, 0, 'the user was not even asked');
  });

  it('runs an approved command in the workspace root and reports output and exit code', async () => {
    const approver = new ScriptedApprover();
    const text = expectOk(
      await runCommandTool({ command: 'echo out; echo err >&2; pwd' }, toolContext([ws]), true, approver),
    );
    const lines = (text.split('\n\n')[0] ?? '').split('\n');
    assert.deepEqual([...lines].sort(), ['err', 'out', ws].sort(), 'stdout and stderr are both captured');
    assert.match(text, /\[exit code 0, \d+\.\d s\.\]$/);
    assert.deepEqual(approver.commands, [
      { command: 'echo out; echo err >&2; pwd', cwd: ws, displayCwd: '.', rootName: basename(ws) },
    ]);
  });

  it('runs in cwd inside the workspace, and refuses a cwd outside', async () => {
    assert.match(
      expectOk(
        await runCommandTool(
          { command: 'cat marker.txt', cwd: 'sub' },
          toolContext([ws]),
          true,
          new ScriptedApprover(),
        ),
      ),
      /^here\n/,
    );
    assert.match(
      expectError(await runCommandTool({ command: 'ls', cwd: '..' }, toolContext([ws]), true, new ScriptedApprover())),
      /outside the workspace/,
    );
  });

  it('reports a non-zero exit as an error, with the output', async () => {
    const text = expectError(
      await runCommandTool({ command: 'echo failing; exit 3' }, toolContext([ws]), true, new ScriptedApprover()),
    );
    assert.match(text, /^failing\n\n\[exit code 3, /);
  });

  it('does not run a declined command and passes the reason on', async () => {
    const text = expectError(
      await runCommandTool(
        { command: 'touch ran.txt' },
        toolContext([ws]),
        true,
        new ScriptedApprover({ approved: false, reason: 'not now' }),
      ),
    );
    assert.match(text, /The user declined to run this command\. Their reason: not now\.\nIt did not run\./);
    await assert.rejects(readFile(join(ws, 'ran.txt')));
  });

  it('kills the whole process group on timeout', async () => {
    const timeout = manualTimeout();
    const ctx = { ...toolContext([ws], { commandKillGraceMs: 300 }), startTimeout: timeout.start };
    const pending = runCommandTool(
      { command: 'sleep 30 & echo started; echo $! > bg.pid; wait', timeout_ms: 1000 },
      ctx,
      true,
      new ScriptedApprover(),
    );
    // The timeout fires once the command has printed and started its child, however long that took.
    const bgPid = await waitUntil('the command to start its background child', () => pidFrom(ws));
    assert.deepEqual(timeout.asked, [1000], 'the timeout asked for is timeout_ms');
    timeout.fire();
    const text = expectError(await pending);
    assert.match(text, /^started\n\n\[Timed out after 1 s: the command and its process group were killed\./);
    await waitUntil('the background child to be killed too', () => !alive(bgPid));
  });

  it('times out on a real timer by default (nothing needs to happen before it fires)', async () => {
    const text = expectError(
      await runCommandTool(
        { command: 'sleep 30', timeout_ms: 1000 },
        toolContext([ws], { commandKillGraceMs: 300 }),
        true,
        new ScriptedApprover(),
      ),
    );
    assert.match(text, /^\(no output\)\n\n\[Timed out after 1 s: /);
  });

  it('kills the process group when the user presses Stop', async () => {
    const abort = new AbortController();
    const pending = runCommandTool(
      { command: 'sleep 30 & echo $! > bg.pid; wait' },
      toolContext([ws], { commandKillGraceMs: 300 }, abort.signal),
      true,
      new ScriptedApprover(),
    );
    const bgPid = await waitUntil('the command to start its background child', () => pidFrom(ws));
    abort.abort();
    const text = expectError(await pending);
    assert.match(text, /Stopped by the user after \d+\.\d s: the command and its process group were killed/);
    await waitUntil('the background child to be killed too', () => !alive(bgPid));
  });

  it('kills a group that ignores SIGTERM with SIGKILL after the grace period', async () => {
    const abort = new AbortController();
    const pending = runCommandTool(
      { command: "trap '' TERM; touch trapped; sleep 30" },
      toolContext([ws], { commandKillGraceMs: 200 }, abort.signal),
      true,
      new ScriptedApprover(),
    );
    // Stop only once SIGTERM is ignored (stopping earlier would let SIGTERM alone end it).
    await waitUntil('the command to ignore SIGTERM', () =>
      readFile(join(ws, 'trapped')).then(
        () => true,
        () => false,
      ),
    );
    abort.abort();
    // Without the SIGKILL the 30 s sleep would outlast the test's own timeout.
    assert.match(
      expectError(await pending),
      /Stopped by the user after \d+\.\d s: the command and its process group were killed/,
    );
  });

  it('caps output head+tail with a notice', async () => {
    const command = `node -e "for (let i = 0; i < 5000; i++) console.log('line ' + i + ' 😀')"`;
    const text = expectOk(
      await runCommandTool({ command }, toolContext([ws], { commandOutputChars: 2000 }), true, new ScriptedApprover()),
    );
    const [output] = text.split('\n\n[exit code');
    assert.ok((output ?? '').length <= 2000, `length ${output?.length}`);
    assert.match(output ?? '', /^line 0 😀\nline 1 😀\n/);
    assert.match(output ?? '', /line 4999 😀$/);
    assert.match(
      output ?? '',
      /\[… [\d,]+ characters \([\d,]+ line breaks\) cut from the middle: output is capped at 2,000 characters …\]/,
    );
  });

  it('does not wait for background processes that keep the output open', async () => {
    const text = expectOk(
      await runCommandTool(
        { command: 'sleep 60 & echo $! > bg.pid; echo done' },
        toolContext([ws]),
        true,
        new ScriptedApprover(),
      ),
    );
    const bgPid = await pidFrom(ws);
    try {
      assert.ok(bgPid > 0 && alive(bgPid), 'returned while the background sleep still runs');
      assert.match(text, /^done\n/);
      assert.match(text, /Processes it started in the background kept running; their later output is not shown\./);
    } finally {
      if (bgPid > 0) process.kill(bgPid, 'SIGKILL');
    }
  });
});
