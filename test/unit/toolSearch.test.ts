import { strict as assert } from 'node:assert';
import type { Message, ServerToolBlock, ToolSchema } from '../../src/core/conversation/conversationModel';
import { appendAssistantMessage } from '../../src/core/conversation/assistant';
import { describeServerBlocks } from '../../src/core/conversation/serverTools';
import { normalizeState } from '../../src/core/normalize/normalize';
import { resolveConfig } from '../../src/core/pipeline/config';
import { serializeRequest } from '../../src/core/pipeline/serialize';
import { counterIds } from '../../src/core/platform/platformPorts';
import { decodeLine } from '../../src/core/session/lineCodec';
import { encodeEntry } from '../../src/core/session/entries';
import { referencedToolsRawTokens, toolSchemaRawTokens, toolsRawTokens } from '../../src/core/tokens/blockTokens';
import { modelInfo } from '../../src/core/models/modelFacts';
import { planToolLoading } from '../../src/core/tools/toolLoading';
import { findToolsDefinition, matchTools } from '../../src/core/tools/findTools';
import { validateRequest } from '../fake-anthropic/validateRequest';

const tokenizer = { name: 'chars4', count: (s: string) => Math.ceil(s.length / 4) };
const schema = (name: string, description: string, server?: string): ToolSchema => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { q: { type: 'string', description: description.repeat(20) } } },
  ...(server !== undefined ? { server } : {}),
});
const readFile = schema('read_file', 'Read a file');
const weather = schema('get_weather', 'Weather of a city', 'weather');
const forecast = schema('get_forecast', 'Forecast of a city', 'weather');
const slack = schema('send_message', 'Send a Slack message', 'slack');

function config() {
  const r = resolveConfig({ model: 'claude-sonnet-4-6' });
  assert.ok(r.ok);
  return r.config;
}
const meta = (id: string) => ({
  id,
  tier: 2 as const,
  source: 'assistant' as const,
  createdAt: 0,
  pinned: false,
  compactable: true,
});
const call = (id: string, pattern: string): ServerToolBlock => ({
  type: 'server_tool',
  raw: { type: 'server_tool_use', id, name: 'tool_search_tool_regex', input: { pattern } },
  meta: { ...meta(`${id}-c`), toolUseId: id },
});
const result = (id: string, names: string[]): ServerToolBlock => ({
  type: 'server_tool',
  raw: {
    type: 'tool_search_tool_result',
    tool_use_id: id,
    content: {
      type: 'tool_search_tool_search_result',
      tool_references: names.map((tool_name) => ({ type: 'tool_reference', tool_name })),
    },
  },
  meta: { ...meta(`${id}-r`), toolUseId: id },
});
const user = (id: string, text: string): Message => ({
  id,
  role: 'user',
  turn: 1,
  blocks: [{ type: 'text', text, meta: { ...meta(`${id}-b`), source: 'user', tier: 1, compactable: false } }],
});
const answer = (id: string, blocks: Message['blocks']): Message => ({ id, role: 'assistant', turn: 1, blocks });

describe('tool search: the plan', () => {
  const plan = (threshold: number, server: boolean, loaded: string[] = []) =>
    planToolLoading({
      offered: [slack, weather, readFile, forecast],
      thresholdTokens: threshold,
      serverToolSearch: server,
      loaded: new Set(loaded),
      tokenizer,
    });

  it('orders built-ins first, then servers by name and tools by name, and defers MCP tools over the threshold', () => {
    const p = plan(10, true);
    assert.deepEqual(
      p.tools.map((t) => [t.name, t.deferLoading ?? false]),
      [
        ['read_file', false],
        ['send_message', true],
        ['get_forecast', true],
        ['get_weather', true],
      ],
    );
    assert.equal(p.search, 'server');
    assert.equal(p.eagerTokens, toolSchemaRawTokens(readFile, tokenizer));
    assert.equal(
      p.deferredTokens,
      [slack, weather, forecast].reduce((n, t) => n + toolSchemaRawTokens(t, tokenizer), 0),
    );
    assert.deepEqual(
      p.byServer.map((s) => [s.server, s.tools, s.eagerTokens > 0, s.deferredTokens > 0]),
      [
        ['', 1, true, false],
        ['slack', 1, false, true],
        ['weather', 2, false, true],
      ],
    );
    assert.deepEqual(JSON.stringify(plan(10, true).tools), JSON.stringify(p.tools), 'byte-identical across plans');
  });

  it('loads everything under the threshold, and without server support leaves deferred tools out but keeps those found', () => {
    const under = plan(1_000_000, true);
    assert.equal(under.search, undefined);
    assert.ok(under.tools.every((t) => t.deferLoading === undefined));
    const client = plan(10, false, ['get_weather']);
    assert.equal(client.search, 'client');
    assert.deepEqual(
      client.tools.map((t) => t.name),
      ['read_file', 'get_weather'],
    );
    assert.deepEqual(
      client.deferred.map((t) => t.name),
      ['send_message', 'get_forecast'],
    );
  });

  it('reads model support from the model table', () => {
    assert.equal(modelInfo('claude-sonnet-4-6').toolSearch, true);
    assert.equal(modelInfo('claude-haiku-4-5-20251001').toolSearch, true);
    assert.equal(modelInfo('claude-sonnet-4-20250514').toolSearch, false);
    assert.equal(modelInfo('some-proxy-model').toolSearch, false);
  });
});

describe('tool search: find_tools', () => {
  it('matches by regex or keywords and loads what it found', async () => {
    assert.deepEqual(
      matchTools([weather, forecast, slack], 'forecast|slack').map((t) => t.name),
      ['get_forecast', 'send_message'],
    );
    assert.deepEqual(
      matchTools([weather, forecast, slack], 'slack message (').map((t) => t.name),
      ['send_message'],
    );
    const loaded: string[] = [];
    const def = findToolsDefinition({ deferred: () => [weather, slack], load: (n) => loaded.push(...n) });
    assert.equal(def.origin.kind, 'session');
    assert.equal(def.approval, 'none');
    assert.equal(def.validate({}).ok, false);
    const check = def.validate({ query: 'weather' });
    assert.ok(check.ok);
    const out = await def.execute(check.input, { signal: new AbortController().signal, toolUseId: 'toolu_1' });
    assert.match(String(out.content), /get_weather \(weather\): Weather of a city/);
    assert.deepEqual(loaded, ['get_weather']);
  });
});

describe('tool search: server tool blocks', () => {
  const tools = planToolLoading({
    offered: [readFile, weather, slack],
    thresholdTokens: 0,
    serverToolSearch: true,
    loaded: new Set(),
    tokenizer,
  }).tools;

  it('come from the answer, round-trip through the session file, and are described for transcripts and summaries', () => {
    const state = { system: [], tools, messages: [user('u1', 'weather?')], pending: [], config: config() };
    const appended = appendAssistantMessage(
      state,
      [
        { type: 'server_tool', raw: call('srvtoolu_1', 'weather').raw },
        { type: 'server_tool', raw: result('srvtoolu_1', ['get_weather']).raw },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { q: 'Paris' } },
      ],
      { clock: { now: () => 5 }, ids: counterIds('t') },
    );
    assert.ok(appended.ok);
    const m = appended.message;
    assert.deepEqual(
      m.blocks.map((b) => [b.type, b.meta.toolUseId]),
      [
        ['server_tool', 'srvtoolu_1'],
        ['server_tool', 'srvtoolu_1'],
        ['tool_use', 'toolu_1'],
      ],
    );
    const line = encodeEntry({ type: 'message', at: 5, message: m });
    const back = decodeLine(line);
    assert.ok(back.ok);
    assert.deepEqual(back.entry, { type: 'message', at: 5, message: m });
    const servers = m.blocks.filter((b): b is ServerToolBlock => b.type === 'server_tool');
    assert.deepEqual(describeServerBlocks(servers), ['searched tools for "weather": found get_weather']);
  });

  it('are sent back verbatim with defer_loading and the search tool last, and the fake server accepts the request', () => {
    const state = {
      system: [],
      tools,
      messages: [
        user('u1', 'weather?'),
        answer('a1', [call('srvtoolu_1', 'weather'), result('srvtoolu_1', ['get_weather'])]),
        user('u2', 'go on'),
      ],
      pending: [],
      config: config(),
    };
    const n = normalizeState(state);
    assert.deepEqual(n.repairs, []);
    const body = serializeRequest(n.state, [{ at: 'tools' }]);
    const sent = body.tools as unknown as Record<string, unknown>[];
    assert.deepEqual(
      sent.map((t) => [t.name, t.defer_loading ?? false, t.cache_control !== undefined]),
      [
        ['read_file', false, false],
        ['send_message', true, false],
        ['get_weather', true, false],
        ['tool_search_tool_regex', false, true],
      ],
    );
    assert.deepEqual(body.messages[1]?.content, [
      call('srvtoolu_1', 'weather').raw,
      result('srvtoolu_1', ['get_weather']).raw,
    ]);
    validateRequest(JSON.parse(JSON.stringify(body)), 'messages');
  });

  it('normalize drops an unpaired half and a reference to a tool no longer deferred, naming each repair', () => {
    const state = {
      system: [],
      tools: [readFile, { ...weather, deferLoading: true }],
      messages: [
        user('u1', 'weather?'),
        answer('a1', [
          call('srvtoolu_1', 'weather'),
          result('srvtoolu_1', ['get_weather', 'gone_tool']),
          call('srvtoolu_2', 'x'),
          { type: 'text', text: 'ok', meta: meta('t1') },
        ]),
        user('u2', 'go on'),
      ],
      pending: [],
      config: config(),
    };
    const n = normalizeState(state);
    assert.deepEqual(
      n.repairs.map((r) => r.kind),
      ['server_tool_unpaired', 'tool_reference_unresolved'],
    );
    const body = serializeRequest(n.state);
    validateRequest(JSON.parse(JSON.stringify(body)), 'messages');
    assert.deepEqual(
      (body.messages[1]?.content as { type: string }[]).map((b) => b.type),
      ['server_tool_use', 'tool_search_tool_result', 'text'],
    );
    assert.throws(
      () => validateRequest(JSON.parse(JSON.stringify(serializeRequest(state))), 'messages'),
      /Tool reference 'gone_tool' has no corresponding tool definition/,
      'the fake refuses the unrepaired request',
    );
  });

  it('the estimator counts eager definitions up front and a deferred one where it is referenced', () => {
    const deferred = { ...weather, deferLoading: true };
    const eagerOnly = toolsRawTokens([readFile], tokenizer).text;
    const withDeferred = toolsRawTokens([readFile, deferred], tokenizer).text;
    assert.ok(withDeferred > eagerOnly, 'the search tool is counted');
    assert.ok(withDeferred < eagerOnly + toolSchemaRawTokens(weather, tokenizer), 'the deferred definition is not');
    const m = answer('a1', [call('srvtoolu_1', 'weather'), result('srvtoolu_1', ['get_weather'])]);
    assert.equal(referencedToolsRawTokens(m, [readFile, deferred], tokenizer), toolSchemaRawTokens(weather, tokenizer));
    assert.equal(
      referencedToolsRawTokens(m, [readFile, weather], tokenizer),
      0,
      'only deferred tools load by reference',
    );
  });
});

describe('fake server: tool search rules', () => {
  const req = (tools: unknown[], messages: unknown[] = [{ role: 'user', content: 'hi' }]) =>
    validateRequest({ model: 'claude-sonnet-4-6', max_tokens: 100, tools, messages }, 'messages');
  const custom = (name: string, deferred = false) => ({
    name,
    description: name,
    input_schema: { type: 'object' },
    ...(deferred ? { defer_loading: true } : {}),
  });
  const search = { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' };

  it('refuses unknown tool types, all tools deferred, a deferred search tool and unresolved references', () => {
    assert.throws(() => req([{ type: 'magic_20990101', name: 'magic' }]), /does not match any of the expected tags/);
    assert.throws(() => req([custom('a', true)]), /All tools have defer_loading set/);
    assert.throws(() => req([custom('a'), { ...search, defer_loading: true }]), /cannot have defer_loading/);
    const history = (name: string) => [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'tool_search_tool_regex', input: { pattern: 'a' } },
          {
            type: 'tool_search_tool_result',
            tool_use_id: 'srvtoolu_1',
            content: {
              type: 'tool_search_tool_search_result',
              tool_references: [{ type: 'tool_reference', tool_name: name }],
            },
          },
        ],
      },
      { role: 'user', content: 'go on' },
    ];
    req([custom('a'), custom('b', true), search], history('b'));
    assert.throws(
      () => req([custom('a'), custom('b', true), search], history('a')),
      /Tool reference 'a' has no corresponding/,
    );
    assert.throws(() => req([custom('a'), custom('b', true), search], history('zz')), /Tool reference 'zz'/);
    const orphan = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_search_tool_result',
            tool_use_id: 'srvtoolu_9',
            content: { type: 'tool_search_tool_search_result', tool_references: [] },
          },
        ],
      },
      { role: 'user', content: 'go on' },
    ];
    assert.throws(() => req([custom('a'), search], orphan), /does not have a matching server_tool_use/);
  });
});
