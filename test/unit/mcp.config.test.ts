/** MCP configuration: the three sources, JSONC, refusals one by one, merge, variables, fingerprint. */
import * as assert from 'node:assert/strict';
import type { McpServerConfig } from '../../src/core/mcp/mcpConfig';
import { mergeMcpConfigs } from '../../src/core/mcp/mcpConfigMerge';
import { parseMcpJson, parseUserMcpServers, parseVscodeMcpJson } from '../../src/core/mcp/mcpConfigParse';
import { configFingerprint } from '../../src/core/mcp/mcpFingerprint';
import { resolveLaunch } from '../../src/core/mcp/mcpVariables';
import { sha256Hex } from '../../src/host/mcp/sha256';

describe('MCP config parsing', () => {
  it('reads the user setting: stdio by command, http by url, type sse, disabled', () => {
    const set = parseUserMcpServers({
      a: { command: 'node', args: ['s.js'], env: { K: 'v', N: 3 } },
      b: { url: 'https://x/mcp', headers: { Authorization: 'Bearer t' } },
      c: { type: 'sse', url: 'https://y/sse', disabled: true },
    });
    assert.deepEqual(set.refused, []);
    const [a, b, c] = set.servers;
    assert.deepEqual(a?.launch, {
      transport: 'stdio',
      command: 'node',
      args: ['s.js'],
      env: { K: 'v', N: '3' },
      cwd: undefined,
      headers: {},
    });
    assert.equal(a?.source, 'user');
    assert.equal(b?.launch.transport, 'http');
    assert.equal(c?.launch.transport, 'sse');
    assert.equal(c?.disabled, true);
  });

  it('reads .vscode/mcp.json with comments, trailing commas and inputs', () => {
    const set = parseVscodeMcpJson(`{
      // a comment
      "inputs": [{ "type": "promptString", "id": "key", "password": true, }],
      "servers": { "gh": { "type": "http", "url": "https://api/mcp", "headers": { "X-Key": "\${input:key}" } }, },
    }`);
    assert.deepEqual(set.refused, []);
    assert.equal(set.servers[0]?.source, 'workspace-vscode');
    assert.deepEqual(set.servers[0]?.inputs, [
      { id: 'key', type: 'promptString', description: undefined, password: true, default: undefined },
    ]);
  });

  it('reads .mcp.json (mcpServers) and refuses malformed entries one by one, naming server and source', () => {
    const set = parseMcpJson(
      JSON.stringify({
        mcpServers: {
          good: { command: 'npx', args: ['-y', 'x'] },
          noCommand: { args: ['a'] },
          badArgs: { command: 'x', args: 'not-a-list' },
          envFile: { command: 'x', envFile: '.env' },
          httpNoUrl: { type: 'http' },
        },
      }),
    );
    assert.deepEqual(
      set.servers.map((s) => s.name),
      ['good'],
    );
    assert.equal(set.servers[0]?.source, 'workspace-mcp-json');
    const byName = Object.fromEntries(set.refused.map((r) => [r.server, r.message]));
    assert.match(byName.noCommand ?? '', /"noCommand" in \.mcp\.json: needs a "command"/);
    assert.match(byName.badArgs ?? '', /"args" must be/);
    assert.match(byName.envFile ?? '', /"envFile" is not supported/);
    assert.match(byName.httpNoUrl ?? '', /needs a "url"/);
  });

  it('refuses a broken file as a whole, with where the error is', () => {
    const set = parseVscodeMcpJson('{ "servers": { "a": ');
    assert.equal(set.servers.length, 0);
    assert.match(set.refused[0]?.message ?? '', /\.vscode\/mcp\.json: not valid JSON .*line 1/);
  });

  it('never quotes a configured value in a refusal', () => {
    const set = parseUserMcpServers({ s: { command: 'x', env: { TOKEN: { secret: 'sk-hidden-value-1234' } } } });
    assert.equal(set.servers.length, 0);
    assert.ok(!JSON.stringify(set.refused).includes('sk-hidden'));
  });

  it('merge: the user setting wins, later duplicates and prefix twins are refused, sorted by name', () => {
    const user = parseUserMcpServers({ zed: { command: 'a' }, dup: { command: 'user' } });
    const ws = parseMcpJson(
      JSON.stringify({ mcpServers: { dup: { command: 'ws' }, 'a.b': { command: 'x' }, a_b: { command: 'y' } } }),
    );
    const merged = mergeMcpConfigs([user, ws]);
    assert.deepEqual(
      merged.servers.map((s) => `${s.name}:${s.source}`),
      ['a.b:workspace-mcp-json', 'dup:user', 'zed:user'],
    );
    assert.equal(merged.refused.length, 2);
    assert.match(merged.refused[0]?.message ?? '', /"dup" in \.mcp\.json is already configured in the setting/);
  });
});

function server(launch: Partial<McpServerConfig['launch']>, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    name: 's',
    source: 'workspace-vscode',
    disabled: false,
    inputs: [],
    launch: { transport: 'stdio', command: 'node', args: [], env: {}, headers: {}, ...launch },
    ...extra,
  };
}

describe('MCP variables', () => {
  const ctx = { workspaceFolder: '/work/proj', userHome: '/home/me', env: { TOKEN: 'tok-from-env-123' } };

  it('resolves workspaceFolder, basename, userHome, env and input (asked once), listing secrets', async () => {
    const asked: string[] = [];
    const out = await resolveLaunch(
      server({
        args: ['${workspaceFolder}/x', '${workspaceFolderBasename}', '${userHome}', '${input:k}'],
        env: { A: '${env:TOKEN}', B: '${input:k}' },
      }),
      ctx,
      async (id) => (asked.push(id), 'input-secret-value'),
    );
    assert.ok(out.ok);
    assert.deepEqual(out.launch.args, ['/work/proj/x', 'proj', '/home/me', 'input-secret-value']);
    assert.deepEqual(out.launch.env, { A: 'tok-from-env-123', B: 'input-secret-value' });
    assert.deepEqual(asked, ['k']);
    assert.ok(out.secrets.includes('tok-from-env-123') && out.secrets.includes('input-secret-value'));
  });

  it('refuses an unresolved input, an unset env var and an unknown variable, naming server and variable', async () => {
    const none = async () => undefined;
    const a = await resolveLaunch(server({ args: ['${input:key}'] }), ctx, none);
    assert.ok(!a.ok && /"s" in \.vscode\/mcp\.json: \$\{input:key\} was not given a value/.test(a.error));
    const b = await resolveLaunch(server({ env: { X: '${env:MISSING}' } }), ctx, none);
    assert.ok(!b.ok && b.error.includes('MISSING is not set'));
    const c = await resolveLaunch(server({ url: '${command:foo}', transport: 'http' }), ctx, none);
    assert.ok(!c.ok && c.error.includes('${command:foo} is not a supported variable'));
    const d = await resolveLaunch(server({ cwd: '${workspaceFolder}' }), { ...ctx, workspaceFolder: undefined }, none);
    assert.ok(!d.ok && d.error.includes('needs an open workspace folder'));
  });
});

describe('MCP config fingerprint', () => {
  const base = server({ args: ['a'], env: { KEY: 'secret-value-abcdef' }, headers: {} });
  const fp = (s: McpServerConfig) => configFingerprint(s, sha256Hex);

  it('changes with command, args, env value, env name, url and header value; stable otherwise', () => {
    assert.equal(fp(base), fp(server({ args: ['a'], env: { KEY: 'secret-value-abcdef' } })));
    const variants = [
      server({ command: 'python', args: ['a'], env: { KEY: 'secret-value-abcdef' } }),
      server({ args: ['b'], env: { KEY: 'secret-value-abcdef' } }),
      server({ args: ['a'], env: { KEY: 'other-value-abcdef' } }),
      server({ args: ['a'], env: { KEY2: 'secret-value-abcdef' } }),
      server({ transport: 'http', url: 'https://a', headers: { H: 'one-value-000' } }),
    ];
    for (const v of variants) assert.notEqual(fp(v), fp(base));
    assert.notEqual(
      fp(server({ transport: 'http', url: 'https://a', headers: { H: 'one-value-000' } })),
      fp(server({ transport: 'http', url: 'https://a', headers: { H: 'two-value-000' } })),
    );
  });

  it('never holds a secret value in clear', () => {
    assert.ok(!fp(base).includes('secret-value'));
    assert.match(fp(base), /^v1:[0-9a-f]{64}$/);
  });
});
