import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import { markRegions } from '../../src/core/compaction/regions';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { counterIds } from '../../src/core/platform/platformPorts';
import { emptyState, testConfig } from './support/builders';
import { ScriptedLlm } from './support/scriptedLlm';
import { nullSink } from './support/sessionSink';
import { agentDeps } from './support/agentDeps';

describe('pinning a whole message from the chat', () => {
  async function session() {
    const llm = new ScriptedLlm(
      Array.from({ length: 4 }, (_, i) => ({
        content: [{ type: 'text' as const, text: `answer ${i + 1} ${'words '.repeat(50)}` }],
      })),
    );
    const pins: Array<[readonly string[], boolean]> = [];
    const events: AgentEvent[] = [];
    const s = new AgentSession(
      emptyState({ config: testConfig({ keepRecentTurns: 1, keepRecentTokens: 0 }) }),
      agentDeps({
        llm,
        sink: nullSink({ pins: async (ids, p) => void pins.push([ids, p]) }),
        ids: counterIds('pm'),
      }),
      (e) => events.push(e),
    );
    for (let i = 1; i <= 4; i++) await s.send(`question ${i} ${'more '.repeat(40)}`);
    return { s, pins, events };
  }

  it('pins every block of the message, persists it, and compaction regions leave it out', async () => {
    const { s, pins, events } = await session();
    const target = s.state.messages[2]!; // the user message of turn 2
    assert.deepEqual(await s.commands.setPinned(target.id, true), { ok: true });
    const pinned = s.state.messages.find((m) => m.id === target.id)!;
    assert.ok(pinned.blocks.every((b) => b.meta.pinned));
    assert.notEqual(pinned, target, 'a new message object (blocks are immutable values)');
    assert.deepEqual(pins, [[target.blocks.map((b) => b.meta.id), true]]);
    assert.ok(events.some((e) => e.type === 'history_replaced'));
    assert.deepEqual(checkInvariants(s.state), []);
    const regions = markRegions(s.state, {
      keepRecentTurns: 1,
      keepRecentTokens: 0,
      tokensOf: (m) => JSON.stringify(m).length / 4,
    });
    assert.ok(
      regions.every((r) => !r.messageIds.includes(target.id)),
      'the pinned message is in no region',
    );
    assert.deepEqual(await s.commands.setPinned(target.id, false), { ok: true });
    assert.ok(s.state.messages.find((m) => m.id === target.id)!.blocks.every((b) => !b.meta.pinned));
  });

  it('refuses clearly for a message that is gone', async () => {
    const { s } = await session();
    const r = await s.commands.setPinned('msg_nowhere', true);
    assert.ok(!r.ok && /no longer in the conversation/.test(r.reason));
  });
});
