/**
 * McpHub over Streamable HTTP against the SDK's own server (McpServer +
 * StreamableHTTPServerTransport) on 127.0.0.1, port 0: headers reach the server, tools list
 * and calls work, a header value never shows in a failure.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpServerConfig } from '../../src/core/mcp/mcpConfig';
import type { McpHub } from '../../src/host/mcp/mcpHub';
import { testHub } from './support/mcpHubHarness';
// @ts-expect-error -- a plain ESM test server without types
import { tinyServer } from './support/mcpTinyServer.mjs';

const TOKEN = 'Bearer test-token-0123456789';

function httpServer(name: string, url: string, headers: Record<string, string>): McpServerConfig {
  return {
    name,
    source: 'user',
    disabled: false,
    inputs: [],
    launch: { transport: 'http', url, args: [], env: {}, headers },
  };
}

describe('MCP over Streamable HTTP (the SDK server on loopback)', function () {
  this.timeout(20_000);
  let server: http.Server;
  let url = '';
  let hub: McpHub | undefined;
  const seenAuth: (string | undefined)[] = [];

  before(async () => {
    server = http.createServer(async (req, res) => {
      seenAuth.push(req.headers.authorization);
      if (req.headers.authorization !== TOKEN) {
        res.writeHead(401).end('unauthorized');
        return;
      }
      // Stateless: a fresh server and transport per request.
      const mcp = tinyServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void transport.close());
      await mcp.connect(transport);
      await transport.handleRequest(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  afterEach(async () => {
    await hub?.dispose();
    hub = undefined;
  });

  it('lists and calls tools with the configured headers', async () => {
    hub = testHub([httpServer('remote', url, { Authorization: TOKEN })]);
    await hub.ensureStarted();
    assert.equal(hub.statuses()[0]?.state, 'ready', JSON.stringify(hub.statuses()));
    assert.ok(hub.definitions().some((d) => d.schema.name === 'mcp__remote__greet'));
    const out = await hub.callTool('remote', 'greet', { name: 'http' }, new AbortController().signal);
    assert.deepEqual(out, { content: 'hello http', isError: false });
    assert.ok(seenAuth.includes(TOKEN));
  });

  it('a refused connection fails without showing the header value', async () => {
    const wrong = 'Bearer wrong-token-9876543210';
    const logs: string[] = [];
    hub = testHub([httpServer('remote', url, { Authorization: wrong })], { log: (l) => void logs.push(l) });
    await hub.ensureStarted();
    const [status] = hub.statuses();
    assert.equal(status?.state, 'failed');
    const all = JSON.stringify([status, logs]);
    assert.ok(!all.includes('wrong-token'), all);
  });
});
