/**
 * Workspace MCP servers: never started in an untrusted workspace or without approval; an
 * approval is remembered per workspace store and per config fingerprint (a changed config asks
 * again); a declined server does not start; user servers start without asking. A fake
 * connection records what was started.
 */
import * as assert from 'node:assert/strict';
import type { McpServerConfig, McpSource } from '../../src/core/mcp/mcpConfig';
import type { McpApprovalRequest } from '../../src/host/mcp/mcpApproval';
import type { McpConnection } from '../../src/host/mcp/mcpConnection';
import type { McpConnectPort } from '../../src/host/mcp/mcpServerSlot';
import { memoryStore, testHub } from './support/mcpHubHarness';

function cfg(
  name: string,
  source: McpSource,
  env: Record<string, string> = { API_KEY: 'key-value-123456' },
): McpServerConfig {
  return {
    name,
    source,
    disabled: false,
    inputs: [],
    launch: { transport: 'stdio', command: 'srv', args: ['--x'], env, headers: {} },
  };
}

function fakeConnect(started: string[]): McpConnectPort {
  return async (launch) => {
    started.push(launch.command ?? '');
    const conn: McpConnection = {
      pid: undefined,
      announcesListChanges: false,
      stderrTail: () => '',
      close: async () => undefined,
      listTools: async () => [{ name: 't', inputSchema: { type: 'object' } }],
      callTool: async () => ({ content: 'ok', isError: false }),
    };
    return conn;
  };
}

describe('MCP workspace approval rules', () => {
  it('a user-setting server starts without asking', async () => {
    const started: string[] = [];
    const asked: McpApprovalRequest[] = [];
    const hub = testHub([cfg('u', 'user')], {
      connect: fakeConnect(started),
      askApproval: async (r) => (asked.push(r), 'declined'),
    });
    await hub.ensureStarted();
    assert.equal(hub.statuses()[0]?.state, 'ready');
    assert.equal(asked.length, 0);
    assert.equal(hub.definitions().length, 1);
  });

  it('an untrusted workspace never starts (or asks about) a workspace server', async () => {
    const started: string[] = [];
    const asked: McpApprovalRequest[] = [];
    const hub = testHub([cfg('w', 'workspace-vscode')], {
      connect: fakeConnect(started),
      isTrusted: () => false,
      askApproval: async (r) => (asked.push(r), 'approved'),
    });
    assert.equal(hub.statuses()[0]?.state, 'disabled');
    await hub.ensureStarted();
    assert.deepEqual([started, asked.length, hub.statuses()[0]?.state], [[], 0, 'disabled']);
    assert.match(hub.statuses()[0]?.message ?? '', /not trusted/);
  });

  it('a declined workspace server does not start and is not asked again this session', async () => {
    const started: string[] = [];
    let asks = 0;
    const hub = testHub([cfg('w', 'workspace-mcp-json')], {
      connect: fakeConnect(started),
      askApproval: async () => (asks++, 'declined'),
    });
    assert.equal(hub.statuses()[0]?.state, 'awaiting-approval');
    await hub.ensureStarted();
    await hub.ensureStarted();
    assert.deepEqual([started, asks, hub.statuses()[0]?.state], [[], 1, 'awaiting-approval']);
    assert.equal(hub.definitions().length, 0);
  });

  it('asks with names only (no env values); an approval is remembered for the same config and store', async () => {
    const store = memoryStore();
    const asked: McpApprovalRequest[] = [];
    const deps = { store, askApproval: async (r: McpApprovalRequest) => (asked.push(r), 'approved' as const) };
    const first = testHub([cfg('w', 'workspace-vscode')], { ...deps, connect: fakeConnect([]) });
    await first.ensureStarted();
    assert.equal(first.statuses()[0]?.state, 'ready');
    assert.deepEqual(asked[0]?.envNames, ['API_KEY']);
    assert.ok(!JSON.stringify(asked).includes('key-value-123456'));
    assert.ok(![...store.data.values()].some((v) => JSON.stringify(v).includes('key-value-123456')));
    await first.dispose();
    const second = testHub([cfg('w', 'workspace-vscode')], { ...deps, connect: fakeConnect([]) });
    assert.equal(second.statuses()[0]?.state, 'stopped');
    await second.ensureStarted();
    assert.equal(asked.length, 1);
    assert.equal(second.statuses()[0]?.state, 'ready');
    // Another workspace (another store) asks again.
    const other = testHub([cfg('w', 'workspace-vscode')], { ...deps, store: memoryStore(), connect: fakeConnect([]) });
    await other.ensureStarted();
    assert.equal(asked.length, 2);
  });

  it('a changed config (an env value) asks again', async () => {
    const store = memoryStore();
    let asks = 0;
    const deps = { store, connect: fakeConnect([]), askApproval: async () => (asks++, 'approved' as const) };
    await testHub([cfg('w', 'workspace-vscode')], deps).ensureStarted();
    const changed = testHub([cfg('w', 'workspace-vscode', { API_KEY: 'another-value-789' })], deps);
    assert.equal(changed.statuses()[0]?.state, 'awaiting-approval');
    await changed.ensureStarted();
    assert.equal(asks, 2);
  });

  it('askApprovalAgain after a decline starts the server when approved', async () => {
    let answer: 'approved' | 'declined' = 'declined';
    const hub = testHub([cfg('w', 'workspace-vscode')], { connect: fakeConnect([]), askApproval: async () => answer });
    await hub.ensureStarted();
    answer = 'approved';
    await hub.askApprovalAgain('w');
    await hub.applyPendingChanges();
    assert.equal(hub.statuses()[0]?.state, 'ready');
    assert.equal(hub.definitions().length, 1);
  });

  it('session toggles: a server off stops it; a tool off leaves at the next boundary', async () => {
    const hub = testHub([cfg('u', 'user')], { connect: fakeConnect([]) });
    await hub.ensureStarted();
    hub.setToolEnabled('u', 't', false);
    assert.equal(hub.definitions().length, 1);
    await hub.applyPendingChanges();
    assert.equal(hub.definitions().length, 0);
    await hub.setServerEnabled('u', false);
    assert.equal(hub.statuses()[0]?.state, 'disabled');
    const out = await hub.callTool('u', 't', {});
    assert.equal(out.isError, true);
  });
});
