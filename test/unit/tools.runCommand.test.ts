import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommandTool } from '../../src/host/tools/runCommand';
import { cleanTempDirs, expectError, expectOk, ScriptedApprover, tempDir, toolContext, writeTree } from './support/toolsWorkspace';

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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await sleep(25);
  }
  return check();
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
    assert.match(text, /run_command is disabled\. The user can enable it with the setting `contextPipeline\.enableRunCommand`/);
    assert.equal(approver.commands.length, 0, 'the user was not even asked');
  });

  it('runs an approved command in the workspace root and reports output and exit code', async () => {
    const approver = new ScriptedApprover();
    const text = expectOk(await runCommandTool({ command: 'echo out; echo err >&2; pwd' }, toolContext([ws]), true, approver));
    const lines = (text.split('\n\n')[0] ?? '').split('\n');
    assert.deepEqual([...lines].sort(), ['err', 'out', ws].sort(), 'stdout and stderr are both captured');
    assert.match(text, /\[exit code 0, \d+\.\d s\.\]$/);
    assert.deepEqual(approver.commands, [{ command: 'echo out; echo err >&2; pwd', cwd: ws, displayCwd: '.' }]);
  });

  it('runs in cwd inside the workspace, and refuses a cwd outside', async () => {
    assert.match(expectOk(await runCommandTool({ command: 'cat marker.txt', cwd: 'sub' }, toolContext([ws]), true, new ScriptedApprover())), /^here\n/);
    assert.match(expectError(await runCommandTool({ command: 'ls', cwd: '..' }, toolContext([ws]), true, new ScriptedApprover())), /outside the workspace/);
  });

  it('reports a non-zero exit as an error, with the output', async () => {
    const text = expectError(await runCommandTool({ command: 'echo failing; exit 3' }, toolContext([ws]), true, new ScriptedApprover()));
    assert.match(text, /^failing\n\n\[exit code 3, /);
  });

  it('does not run a declined command and passes the reason on', async () => {
    const text = expectError(await runCommandTool({ command: 'touch ran.txt' }, toolContext([ws]), true, new ScriptedApprover({ approved: false, reason: 'not now' })));
    assert.match(text, /The user declined to run this command\. Their reason: not now\. It did not run\./);
    await assert.rejects(readFile(join(ws, 'ran.txt')));
  });

  it('kills the whole process group on timeout', async () => {
    const started = Date.now();
    const text = expectError(await runCommandTool({ command: 'sleep 30 & echo $! > bg.pid; echo started; wait', timeout_ms: 1000 }, toolContext([ws], { commandKillGraceMs: 300 }), true, new ScriptedApprover()));
    assert.ok(Date.now() - started < 5000, 'returned soon after the timeout');
    assert.match(text, /^started\n\n\[Timed out after 1 s: the command and its process group were killed\./);
    const bgPid = Number(await readFile(join(ws, 'bg.pid'), 'utf8'));
    assert.ok(await waitUntil(() => !alive(bgPid), 3000), 'the background child was killed too');
  });

  it('kills the process group when the user presses Stop', async () => {
    const abort = new AbortController();
    const pending = runCommandTool({ command: 'sleep 30 & echo $! > bg.pid; wait' }, toolContext([ws], { commandKillGraceMs: 300 }, abort.signal), true, new ScriptedApprover());
    const pidFile = join(ws, 'bg.pid');
    await sleep(300);
    const bgPid = Number(await readFile(pidFile, 'utf8').catch(() => '0'));
    abort.abort();
    const text = expectError(await pending);
    assert.match(text, /Stopped by the user after \d+\.\d s: the command and its process group were killed/);
    if (bgPid > 0) assert.ok(await waitUntil(() => !alive(bgPid), 3000), 'the background child was killed too');
  });

  it('kills a group that ignores SIGTERM with SIGKILL after the grace period', async () => {
    const abort = new AbortController();
    const pending = runCommandTool({ command: "trap '' TERM; sleep 30" }, toolContext([ws], { commandKillGraceMs: 200 }, abort.signal), true, new ScriptedApprover());
    await sleep(200);
    abort.abort();
    const started = Date.now();
    expectError(await pending);
    assert.ok(Date.now() - started < 3000);
  });

  it('caps output head+tail with a notice', async () => {
    const command = `node -e "for (let i = 0; i < 5000; i++) console.log('line ' + i + ' 😀')"`;
    const text = expectOk(await runCommandTool({ command }, toolContext([ws], { commandOutputChars: 2000 }), true, new ScriptedApprover()));
    const [output] = text.split('\n\n[exit code');
    assert.ok((output ?? '').length <= 2000, `length ${output?.length}`);
    assert.match(output ?? '', /^line 0 😀\nline 1 😀\n/);
    assert.match(output ?? '', /line 4999 😀$/);
    assert.match(output ?? '', /\[… [\d,]+ characters \([\d,]+ line breaks\) cut from the middle: output is capped at 2,000 characters …\]/);
  });

  it('does not wait for background processes that keep the output open', async () => {
    const started = Date.now();
    const text = expectOk(await runCommandTool({ command: 'sleep 3 & echo done' }, toolContext([ws]), true, new ScriptedApprover()));
    assert.ok(Date.now() - started < 3000, 'returned without waiting for the background sleep');
    assert.match(text, /^done\n/);
  });
});
