// MCP servers in a real VS Code against the fake Anthropic server, with a real MCP server from
// npm (@modelcontextprotocol/server-everything over stdio) defined by the workspace's
// .vscode/mcp.json: the first message asks to start it (a modal naming the command), the
// scripted model calls its `echo` tool, the chat asks with the MCP card (server, tool,
// description, input), the result comes back as a tool card and in the next request, and the
// budget panel's Tools card lists the server and its definitions. Then, in a second window with
// contextPipeline.toolSearch.deferThreshold 0: the tools go deferred behind the API's tool
// search (`defer_loading`, the search tool), the model searches, calls the tool found, and the
// next request is valid.
//   node --import tsx --test test/vscode/mcp.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { closeWorld, startAgentWorld } from './agentHarness.mjs';
import { budgetFrame } from './budgetFrame.mjs';
import { REPO_ROOT } from './setup.mjs';
import { eventually, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';

/** @typedef {import('./agentHarness.mjs').AgentWorld} AgentWorld */

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const MCP_JSON = JSON.stringify(
  { servers: { everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } } },
  null,
  2,
);
const TOOL = 'mcp__everything__echo';
/** Where the README's screenshots go: docs/screenshots/ with CP_UPDATE_DOCS_SCREENSHOTS=1, else test-results/. */
const OUT =
  process.env.CP_UPDATE_DOCS_SCREENSHOTS === '1'
    ? join(REPO_ROOT, 'docs', 'screenshots')
    : join(REPO_ROOT, 'test-results', 'screenshots');

/**
 * Saves the side bar (the chat) and the budget panel's Tools card as `<theme>-mcp-chat.png` and `<theme>-mcp-tools.png`.
 * @param {AgentWorld} w
 * @param {'dark' | 'light'} theme
 */
async function shots(w, theme) {
  mkdirSync(OUT, { recursive: true });
  await w.page.mouse.move(1, 899);
  await w.page
    .locator('.part.sidebar')
    .screenshot({ path: join(OUT, `${theme}-mcp-chat.png`), animations: 'disabled' });
  await w.command('Context Pipeline: Show Context Budget');
  const budget = await budgetFrame(w.page);
  const card = budget.getByTestId('budget-tools');
  await card.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  await budget.evaluate(() => {
    for (const d of document.querySelectorAll('[data-testid="budget-tools"] details')) d.setAttribute('open', '');
  });
  await card.screenshot({ path: join(OUT, `${theme}-mcp-tools.png`), animations: 'disabled' });
  return budget;
}

/**
 * Clicks Allow on the modal that asks to start the workspace's server, after checking it names what it runs.
 * @param {AgentWorld} w
 */
async function allowServer(w) {
  const dialog = w.page.locator('.monaco-dialog-box');
  await dialog.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  const text = await dialog.innerText();
  assert.match(text, /Start the MCP server "everything" from this workspace\?/);
  assert.match(text, /\.vscode\/mcp\.json/);
  assert.ok(text.includes(EVERYTHING), 'the modal names the script the command runs');
  await dialog.getByRole('button', { name: 'Allow' }).click();
  await dialog.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
}

/**
 * Allows the MCP call waiting in the chat, after checking its card.
 * @param {AgentWorld} w
 * @param {string} message
 */
async function allowCall(w, message) {
  const card = w.frame.locator('[data-testid="approval"][data-tool="mcp"][data-state="pending"]');
  await card.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  assert.match(await card.locator('.approval-head').innerText(), /echo\s+from\s+everything/);
  assert.ok((await card.getByTestId('approval-input').innerText()).includes(message), 'the card shows the input');
  await card.getByTestId('approval-description').locator('summary').click();
  assert.match(await card.getByTestId('approval-description').innerText(), /[Ee]cho/);
  await card.getByTestId('approve').click();
}

describe('MCP servers from the workspace, in a real VS Code', { timeout: suiteTimeout(600_000) }, () => {
  /** @type {AgentWorld | undefined} */
  let w;
  after(async () => {
    await closeWorld(w, 'mcp-last');
  });

  test('approve the server, the model calls its tool through the card, the Tools card counts it', async () => {
    w = await startAgentWorld({
      workspaceFiles: { '.vscode/mcp.json': MCP_JSON },
      settings: { 'workbench.colorTheme': 'Default Dark Modern' },
    });
    w.fake.script(
      { text: 'Let me echo it.', toolUses: [{ name: TOOL, input: { message: 'hello from mcp' } }] },
      { text: 'The server echoed it back.' },
    );
    await w.send('Echo "hello from mcp" with the MCP server');
    await allowServer(w);
    await allowCall(w, 'hello from mcp');
    await w.waitForAnswer('The server echoed it back.');
    await w.waitIdle();

    const sent = w.fake.requests.filter((r) => r.path === '/v1/messages');
    const first = /** @type {{ tools: { name: string }[] }} */ (sent[0]?.body);
    assert.ok(
      first.tools.some((t) => t.name === TOOL),
      'the first request offers the server tool',
    );
    const result = w.lastBlocks().find((b) => b.type === 'tool_result');
    assert.ok(result && JSON.stringify(result.content).includes('hello from mcp'), 'the echo went back to the model');
    const toolCard = w.frame.locator('.item.tool', { hasText: 'echo · everything' }).first();
    await toolCard.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match(await toolCard.locator('summary').innerText(), /^echo · everything "hello from mcp" ✓/);

    const budget = await shots(w, 'dark');
    const server = budget.locator('[data-testid="mcp-server"][data-server="everything"]');
    await server.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await server.getAttribute('data-state'), 'ready');
    const table = budget.getByTestId('tools-table');
    await eventually('the Tools card to list the server with its tokens', async () =>
      /everything/.test(await table.innerText()),
    );
    await closeWorld(w, 'mcp-eager');
    w = undefined;
  });

  test('deferred behind tool search: the model finds the tool, calls it, and the next request is valid', async () => {
    w = await startAgentWorld({
      workspaceFiles: { '.vscode/mcp.json': MCP_JSON },
      settings: { 'contextPipeline.toolSearch.deferThreshold': 0, 'workbench.colorTheme': 'Default Light Modern' },
    });
    w.fake.script(
      { toolSearch: { pattern: 'echo' }, toolUses: [{ name: TOOL, input: { message: 'found by search' } }] },
      { text: 'Found and echoed.' },
    );
    await w.send('Find a tool that echoes, and echo "found by search"');
    await allowServer(w);
    await allowCall(w, 'found by search');
    await w.waitForAnswer('Found and echoed.');
    await w.waitIdle();
    const sent = w.fake.requests.filter((r) => r.path === '/v1/messages');
    assert.equal(sent.length, 2);
    const firstBody = /** @type {{ tools: { name: string, type?: string, defer_loading?: boolean }[] }} */ (
      sent[0]?.body ?? { tools: [] }
    );
    const tools = firstBody.tools;
    assert.ok(
      tools.filter((t) => t.name.startsWith('mcp__everything__')).every((t) => t.defer_loading === true),
      'every MCP tool goes deferred',
    );
    assert.ok(
      tools.some((t) => t.type?.startsWith('tool_search_tool_')),
      'the tool search tool is offered',
    );
    assert.ok(
      tools.filter((t) => !t.name.startsWith('mcp__')).every((t) => t.defer_loading !== true),
      'built-ins stay loaded',
    );
    const second = /** @type {{ messages: { content: { type: string }[] | string }[] }} */ (sent[1]?.body ?? {});
    const answer = second.messages[1]?.content;
    assert.ok(Array.isArray(answer));
    assert.deepEqual(
      answer.map((b) => b.type),
      ['server_tool_use', 'tool_search_tool_result', 'tool_use'],
    );
    // The session file keeps the search and its result.
    const entries = w.sessionEntries().flatMap((f) => f.entries);
    const saved = JSON.stringify(entries);
    assert.ok(saved.includes('tool_search_tool_result'), 'the search result is in the session file');
    const budget = await shots(w, 'light');
    await eventually('the Tools card to mark the server tools deferred', async () =>
      /deferred/.test(await budget.getByTestId('tools-table').innerText()),
    );
  });
});
