/**
 * McpHub against real MCP servers from npm over stdio: server-everything and
 * server-filesystem (on a temp dir), and the tiny test server for crashes, cancellation and
 * list_changed. No fixed delays: waits are on the hub's change events.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { McpHub } from '../../src/host/mcp/mcpHub';
import { EVERYTHING, FILESYSTEM, nodeServer, testHub, TINY_SERVER, waitFor } from './support/mcpHubHarness';

const signal = () => new AbortController().signal;
const text = (c: unknown) => (typeof c === 'string' ? c : JSON.stringify(c));

describe('MCP over stdio (real servers)', function () {
  this.timeout(30_000);
  let hub: McpHub | undefined;
  afterEach(async () => {
    await hub?.dispose();
    hub = undefined;
  });

  it('server-everything: lists tools as mcp__ definitions, calls echo, converts an image', async () => {
    hub = testHub([nodeServer('everything', EVERYTHING, ['stdio'])]);
    await hub.ensureStarted();
    const [status] = hub.statuses();
    assert.equal(status?.state, 'ready', JSON.stringify(status));
    const names = hub.definitions().map((d) => d.schema.name);
    assert.ok(names.includes('mcp__everything__echo'), names.join());
    assert.deepEqual(names, [...names].sort());
    const echo = hub.definitions().find((d) => d.schema.name === 'mcp__everything__echo');
    assert.equal(echo?.origin.kind, 'mcp');
    assert.equal(echo?.schema.server, 'everything');
    assert.equal(echo?.approval, 'ask');
    const check = echo?.validate({ message: 'hi' });
    assert.ok(check?.ok);
    const bad = echo?.validate({});
    assert.ok(bad && !bad.ok && bad.error.includes('"message" is required'), JSON.stringify(bad));
    const out = await echo!.execute({ message: 'hi there' }, { signal: signal(), toolUseId: 'toolu_1' });
    assert.equal(out.isError, false);
    assert.match(text(out.content), /hi there/);
    const image = await hub.callTool('everything', 'get-tiny-image', {}, signal());
    assert.ok(
      Array.isArray(image.content) && image.content.some((p) => p.type === 'image' && p.mediaType === 'image/png'),
    );
  });

  it('a call past its timeout ends with an error result saying so', async () => {
    hub = testHub([nodeServer('everything', EVERYTHING, ['stdio'])]);
    await hub.ensureStarted();
    const out = await hub.callTool(
      'everything',
      'trigger-long-running-operation',
      { duration: 30, steps: 1 },
      signal(),
      300,
    );
    assert.equal(out.isError, true);
    assert.match(text(out.content), /timed out/);
  });

  it('server-filesystem on a temp dir: reads a file; a path outside is an error result', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-fs-'));
    fs.writeFileSync(path.join(dir, 'note.txt'), 'the note');
    hub = testHub([nodeServer('fs', FILESYSTEM, [dir])]);
    await hub.ensureStarted();
    assert.equal(hub.statuses()[0]?.state, 'ready', JSON.stringify(hub.statuses()));
    const read = hub.definitions().find((d) => d.schema.name === 'mcp__fs__read_text_file');
    assert.ok(
      read,
      hub
        .definitions()
        .map((d) => d.schema.name)
        .join(),
    );
    assert.equal(read.readOnly, true);
    assert.equal(read.target({ path: path.join(dir, 'note.txt') }), path.join(dir, 'note.txt'));
    const ok = await hub.callTool('fs', 'read_text_file', { path: path.join(dir, 'note.txt') }, signal());
    assert.equal(ok.isError, false);
    assert.match(text(ok.content), /the note/);
    const denied = await hub.callTool('fs', 'read_text_file', { path: '/etc/hostname' }, signal());
    assert.equal(denied.isError, true);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('Stop cancels a running call', async () => {
    hub = testHub([nodeServer('tiny', TINY_SERVER, ['--stdio'])]);
    await hub.ensureStarted();
    const ac = new AbortController();
    const call = hub.callTool('tiny', 'wait', {}, ac.signal, 20_000);
    ac.abort();
    const out = await call;
    assert.equal(out.isError, true);
    assert.match(text(out.content), /Stopped/);
  });

  it('a crashed server: the call is an error result, it restarts with backoff and answers again', async () => {
    const sleeps: number[] = [];
    hub = testHub([nodeServer('tiny', TINY_SERVER, ['--stdio'])], { sleep: async (ms) => void sleeps.push(ms) });
    await hub.ensureStarted();
    const crashed = await hub.callTool('tiny', 'crash', {}, signal());
    assert.equal(crashed.isError, true);
    await waitFor(hub, () => hub!.statuses()[0]?.state === 'ready' && sleeps.length > 0, 'the restart');
    assert.deepEqual(sleeps, [1000]);
    const again = await hub.callTool('tiny', 'greet', { name: 'you' }, signal());
    assert.equal(again.isError, false);
    assert.match(text(again.content), /hello you/);
  });

  it('tools/list_changed marks the list stale; the new tool appears only at applyPendingChanges', async () => {
    hub = testHub([nodeServer('tiny', TINY_SERVER, ['--stdio'])]);
    await hub.ensureStarted();
    const before = hub.definitions().map((d) => d.schema.name);
    await hub.callTool('tiny', 'add_tool', {}, signal());
    await waitFor(hub, () => hub!.statuses()[0]?.stale === true, 'the stale mark');
    assert.deepEqual(
      hub.definitions().map((d) => d.schema.name),
      before,
    );
    assert.equal(await hub.applyPendingChanges(), true);
    assert.ok(hub.definitions().some((d) => d.schema.name === 'mcp__tiny__extra_1'));
    assert.equal(hub.statuses()[0]?.stale, false);
  });

  it('a server that fails to start is failed with its stderr tail, secrets redacted', async () => {
    const secret = 'sk-very-secret-value-123';
    hub = testHub([nodeServer('bad', TINY_SERVER, ['--stdio', '--fail-start'], { SECRET_TOKEN: secret })]);
    await hub.ensureStarted();
    const [status] = hub.statuses();
    assert.equal(status?.state, 'failed');
    const all = JSON.stringify(status);
    assert.ok(!all.includes(secret), all);
    assert.match(all, /cannot start: token \[redacted\]/);
  });

  it('a crash that echoes a secret on stderr: the failed state and error text never show it', async () => {
    const secret = 'sk-very-secret-value-456';
    const logs: string[] = [];
    hub = testHub([nodeServer('tiny', TINY_SERVER, ['--stdio'], { SECRET_TOKEN: secret })], {
      policy: { maxRestartAttempts: 0 },
      log: (l) => void logs.push(l),
    });
    await hub.ensureStarted();
    const out = await hub.callTool('tiny', 'echo_secret', {}, signal());
    assert.equal(out.isError, true);
    await waitFor(hub, () => hub!.statuses()[0]?.state === 'failed', 'the failed state');
    const all = JSON.stringify([out, hub.statuses(), logs]);
    assert.ok(!all.includes(secret), all);
  });
});
