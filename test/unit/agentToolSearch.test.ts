import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { ToolSchema } from '../../src/core/conversation/conversationModel';
import { resolveConfig } from '../../src/core/pipeline/config';
import { counterIds } from '../../src/core/platform/platformPorts';
import { planToolLoading } from '../../src/core/tools/toolLoading';
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

describe('tool search through the agent loop (fake server)', function () {
  this.timeout(60_000);
  let fake: FakeAnthropic;
  beforeEach(async () => {
    fake = await startFakeAnthropic({ port: 0 });
  });
  afterEach(async () => {
    await fake.close();
  });

  it('the model searches the deferred tools, calls the one found, and the next request is valid and counts it', async () => {
    const resolved = resolveConfig({ model: 'claude-sonnet-4-6' });
    assert.ok(resolved.ok);
    const deps = agentDeps({ ids: counterIds('ts') });
    const plan = planToolLoading({
      offered: [
        tool('read_file', 'Read a file'),
        tool('get_weather', 'Current weather of a city', 'weather'),
        tool('send_message', 'Send a Slack message', 'slack'),
      ],
      thresholdTokens: 0,
      serverToolSearch: true,
      loaded: new Set(),
      tokenizer: deps.tokenizer,
    });
    fake.script(
      { toolSearch: { pattern: 'weather' }, toolUses: [{ name: 'get_weather', input: { city: 'Paris' } }] },
      { text: 'It is sunny in Paris.' },
    );
    const tools = new FakeTools({ get_weather: 'sunny, 21 °C' });
    const session = new AgentSession(
      { system: [], tools: plan.tools, messages: [], pending: [], config: resolved.config },
      { ...deps, llm: fakeServerClient(fake.url), tools },
      () => undefined,
    );
    await session.send('What is the weather in Paris?');
    assert.deepEqual(
      tools.calls.map((c) => c.name),
      ['get_weather'],
    );
    const answer = session.state.messages[1];
    assert.deepEqual(
      answer?.blocks.map((b) => b.type),
      ['server_tool', 'server_tool', 'tool_use'],
    );
    const sent = fake.requests.filter((r) => r.path === '/v1/messages');
    assert.equal(sent.length, 2);
    assert.ok(
      sent.every((r) => r.valid && !r.error),
      JSON.stringify(sent.map((r) => r.error)),
    );
    const second = sent[1]?.body as { messages: { content: { type: string }[] }[] };
    assert.deepEqual(
      second.messages[1]?.content.map((b) => b.type),
      ['server_tool_use', 'tool_search_tool_result', 'tool_use'],
    );
    // The referenced definition is in the second prompt, the unreferenced one in neither.
    assert.ok((sent[1]?.inputTokens ?? 0) > (sent[0]?.inputTokens ?? 0));
    assert.equal(session.state.messages.at(-1)?.role, 'assistant');
  });
});
