import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { Message } from '../../src/core/conversation/conversationModel';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { resolveConfig } from '../../src/core/pipeline/config';
import { counterIds } from '../../src/core/platform/platformPorts';
import { replaySession } from '../../src/core/session/replay';
import { agentDeps } from './support/agentDeps';
import { fakeServerClient } from './support/fakeServerAgent';
import { FakeTools, ScriptedLlm } from './support/scriptedLlm';
import { nullSink } from './support/sessionSink';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic';

const CHAT = 'claude-sonnet-4-6';
const bash = {
  name: 'bash',
  description: 'Run a command',
  inputSchema: { type: 'object' as const, properties: { command: { type: 'string' } } },
};

describe('a session closed while its tools ran goes on when it is reopened', function () {
  this.timeout(60_000);
  let fake: FakeAnthropic;
  beforeEach(async () => {
    fake = await startFakeAnthropic({ port: 0 });
  });
  afterEach(async () => {
    await fake.close();
  });

  it("the calls left without results are answered as interrupted with the user's next message, which the API accepts", async () => {
    const resolved = resolveConfig({ model: CHAT });
    assert.ok(resolved.ok);
    const state = { system: [], tools: [bash], messages: [], pending: [], config: resolved.config };
    // The window closes while `npm test` runs: the turn is stopped and the session file closed
    // (sessionLifecycle.dispose), so the round's results are never saved.
    const saved: Message[] = [];
    let closed = false;
    const tools = new FakeTools({}, new Set(['bash']));
    const first = new AgentSession(
      state,
      agentDeps({
        llm: new ScriptedLlm([
          { content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'npm test' } }] },
        ]),
        tools,
        ids: counterIds('one'),
        sink: nullSink({
          message: async (m) => {
            if (closed) throw new Error('The session is closed.');
            saved.push(m);
          },
        }),
      }),
      () => undefined,
    );
    const running = first.send('Run the tests');
    await tools.waiting.reached(1);
    first.stop();
    closed = true;
    await running.catch(() => undefined);
    assert.equal(saved.at(-1)?.role, 'assistant', 'the file ends with the tool call');

    // Reopened: the file replayed, then the user's next message.
    const replayed = replaySession(saved.map((message) => ({ type: 'message' as const, at: 1, message })));
    fake.script({ match: { model: CHAT }, text: 'The tests were interrupted; I will run them again when you ask.' });
    const second = new AgentSession(
      { ...state, messages: [...replayed.messages] },
      agentDeps({ llm: fakeServerClient(fake.url), ids: counterIds('two') }),
      () => undefined,
    );
    assert.deepEqual(await second.send('Did the tests pass?'), { ok: true });
    assert.deepEqual(
      fake.invalidRequests.map((r) => r.error),
      [],
    );
    assert.equal(fake.requests.length, 1);
    const asked = second.state.messages.at(-2);
    assert.equal(asked?.role, 'user');
    const result = asked?.blocks[0];
    assert.ok(result?.type === 'tool_result' && result.toolUseId === 'toolu_1' && result.isError === true);
    assert.ok(
      asked?.blocks.some((b) => b.type === 'text' && b.text === 'Did the tests pass?'),
      "the user's words follow the result",
    );
    assert.deepEqual(checkInvariants(second.state, { allowPendingToolUse: false }), []);
  });
});
