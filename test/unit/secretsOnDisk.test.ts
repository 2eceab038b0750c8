import { strict as assert } from 'node:assert';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { spillWriter } from '../../src/host/chat/spillWriter';
import { childEnv } from '../../src/host/tools/childEnv';
import { runCommandTool } from '../../src/host/tools/runCommand';
import { WorkspaceToolRunner } from '../../src/host/tools/workspaceToolRunner';
import { cleanTempDirs, expectOk, ScriptedApprover, tempDir, toolContext } from './support/toolsWorkspace';

const KEY = 'sk-ant-api03-SPILLED-KEY-0123456789abcdef';

describe('spill files and child processes never get the API key', () => {
  afterEach(cleanTempDirs);

  it('a spilled paste or tool output is written with the key redacted, privately', async () => {
    const dir = await tempDir();
    const path = join(dir, 's1.files', 'paste-1.txt');
    const write = spillWriter(() => [KEY, undefined]);
    await write(path, `export ANTHROPIC_API_KEY=${KEY}\n{"key":${JSON.stringify(KEY)}}\n`);
    const text = await readFile(path, 'utf8');
    assert.equal(text, 'export ANTHROPIC_API_KEY=[redacted]\n{"key":"[redacted]"}\n');
    if (process.platform !== 'win32') {
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      assert.equal((await stat(join(dir, 's1.files'))).mode & 0o777, 0o700);
    }
  });

  it('the secrets are read at each write (a key set later is redacted too)', async () => {
    // eslint-disable-next-line prefer-const -- assigned after the writer is built, on purpose
    let key: string | undefined;
    const seen: string[] = [];
    const write = spillWriter(
      () => [key],
      async (_p, c) => void seen.push(c),
    );
    await write('a', `x ${KEY}`);
    key = KEY;
    await write('b', `x ${KEY}`);
    assert.deepEqual(seen, [`x ${KEY}`, 'x [redacted]']);
  });

  it('childEnv drops ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN and any variable holding the key', () => {
    const env = {
      PATH: '/bin',
      ANTHROPIC_API_KEY: KEY,
      anthropic_auth_token: 'tok-12345678',
      PROXY_AUTH: `Bearer ${KEY}`,
      HOME: '/home/me',
      SHORT: 'abc',
    };
    const out = childEnv(env, [KEY, 'abc'], { PAGER: 'cat' });
    assert.deepEqual(out, { PATH: '/bin', HOME: '/home/me', SHORT: 'abc', PAGER: 'cat' });
    assert.equal(env.ANTHROPIC_API_KEY, KEY, 'the parent environment is untouched');
  });

  it("run_command's child sees neither the key variables nor a copy of the key", async () => {
    const saved = { ...process.env };
    process.env.ANTHROPIC_API_KEY = KEY;
    process.env.ANTHROPIC_AUTH_TOKEN = 'auth-token-0123456789';
    process.env.CP_TEST_COPY = KEY;
    process.env.CP_TEST_PLAIN = 'visible';
    try {
      const ws = await tempDir();
      const command = 'echo "a=[$ANTHROPIC_API_KEY] t=[$ANTHROPIC_AUTH_TOKEN] c=[$CP_TEST_COPY] p=[$CP_TEST_PLAIN]"';
      const direct = expectOk(
        await runCommandTool({ command }, toolContext([ws]), true, new ScriptedApprover(), [KEY]),
      );
      assert.match(direct, /^a=\[\] t=\[\] c=\[\] p=\[visible\]/);
      // Through the runner, as the extension wires it (secrets from the options).
      const runner = new WorkspaceToolRunner({
        roots: [ws],
        approver: new ScriptedApprover(),
        runCommandEnabled: () => true,
        filesExclude: () => ({}),
        secrets: () => [KEY],
      });
      const outcome = await runner.run(
        { id: 't1', name: 'run_command', input: { command } },
        new AbortController().signal,
      );
      const text = typeof outcome.content === 'string' ? outcome.content : JSON.stringify(outcome.content);
      assert.equal(outcome.isError, false, text);
      assert.match(text, /^a=\[\] t=\[\] c=\[\] p=\[visible\]/);
    } finally {
      for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CP_TEST_COPY', 'CP_TEST_PLAIN']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });
});
