import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { ToolSchema } from '../../src/core/conversation/conversationModel';
import { resolveConfig } from '../../src/core/pipeline/config';
import { counterIds } from '../../src/core/platform/platformPorts';
import { ToolLoader } from '../../src/core/tools/toolLoader';
import { agentDeps } from './support/agentDeps';
import { fakeServerClient } from './support/fakeServerAgent';
import { FakeTools } from './support/scriptedLlm';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic';

const tool = (name: string, description: string, server?: string): ToolSchema => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  ...(server ? { server } : {}),
});
const OFFERED = [
  tool('read_file', 'Read a file'),
  tool('mcp__weather__get_weather', 'Current weather of a city', 'weather'),
  tool('mcp__slack__send_message', 'Send a Slack message', 'slack'),
];

describe('tool loading: the loader behind the session', function () {
  this.timeout(60_000);

  it('keeps the same tools while nothing changed, and defers only over the threshold', () => {
    const deps = agentDeps({ ids: counterIds('tl') });
    let threshold = 0;
    const loader = new ToolLoader({
      tokenizer: deps.tokenizer,
      thresholdTokens: () => threshold,
      serverToolSearch: () => true,
    });
    const first = loader.tools(OFFERED);
    assert.deepEqual(
      first.map((t) => [t.name, t.deferLoading ?? false]),
      [
        ['read_file', false],
        ['mcp__slack__send_message', true],
        ['mcp__weather__get_weather', true],
      ],
    );
    assert.equal(loader.tools(OFFERED), first, 'the same array');
    threshold = 1_000_000;
    const eager = loader.tools(OFFERED);
    assert.ok(eager.every((t) => t.deferLoading !== true));
    assert.equal(eager[1], OFFERED[2], 'an eager MCP tool is the offered schema itself (sorted by server)');
    threshold = 0;
    assert.equal(loader.tools(OFFERED)[1], first[1], 'a deferred copy is reused when deferred again');
  });

  describe('without server tool search (find_tools)', () => {
    let fake: FakeAnthropic;
    beforeEach(async () => {
      fake = await startFakeAnthropic({ port: 0 });
    });
    afterEach(async () => {
      await fake.close();
    });

    it('find_tools loads a tool, which the next request of the same turn carries, and the call runs', async () => {
      const resolved = resolveConfig({ model: 'claude-sonnet-4-6' });
      assert.ok(resolved.ok);
      const deps = agentDeps({ ids: counterIds('ft') });
      const toolLoader = new ToolLoader({
        tokenizer: deps.tokenizer,
        thresholdTokens: () => 0,
        serverToolSearch: () => false,
      });
      fake.script(
        { toolUses: [{ name: 'find_tools', input: { query: 'weather' } }] },
        { toolUses: [{ name: 'mcp__weather__get_weather', input: { city: 'Paris' } }] },
        { text: 'It is sunny in Paris.' },
      );
      const tools = new FakeTools({ mcp__weather__get_weather: 'sunny, 21 °C' });
      const session = new AgentSession(
        { system: [], tools: OFFERED, messages: [], pending: [], config: resolved.config },
        { ...deps, llm: fakeServerClient(fake.url), tools, toolLoader },
        () => undefined,
      );
      await session.send('What is the weather in Paris?');
      const sent = fake.requests.filter((r) => r.path === '/v1/messages');
      assert.equal(sent.length, 3);
      assert.ok(
        sent.every((r) => r.valid && !r.error),
        JSON.stringify(sent.map((r) => r.error)),
      );
      const names = (i: number) => ((sent[i]?.body as { tools?: { name: string }[] }).tools ?? []).map((t) => t.name);
      assert.deepEqual(
        names(0),
        ['read_file', 'recall', 'find_tools'].filter((n) => names(0).includes(n)),
      );
      assert.ok(!names(0).includes('mcp__weather__get_weather'), 'deferred: not sent before it is found');
      assert.ok(names(1).includes('mcp__weather__get_weather'), 'found: sent from the next request');
      assert.ok(!names(1).includes('mcp__slack__send_message'));
      assert.deepEqual(
        tools.calls.map((c) => c.name),
        ['mcp__weather__get_weather'],
      );
      const found = session.state.messages.find((m) =>
        m.blocks.some((b) => b.type === 'tool_result' && String(b.content).includes('mcp__weather__get_weather')),
      );
      assert.ok(found, 'find_tools answered with the tool it found');
      assert.equal(session.toolPlan()?.search, 'client');
    });
  });
});
