import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { CompletedToolCall, ContextAfterTools } from '../../src/core/agent/contextAfterTools';
import type { AgentEvent } from '../../src/core/agent/events';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { Injection } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { emptyState } from './support/builders';
import { FakeTools, ScriptedLlm, type Step } from './support/scriptedLlm';
import { agentDeps } from './support/agentDeps';

function setup(steps: Step[], hook: ContextAfterTools | undefined) {
  const llm = new ScriptedLlm(steps);
  const events: AgentEvent[] = [];
  const deps = agentDeps({
    llm,
    tools: new FakeTools({ read_file: 'export const a = 1;' }),
    ids: counterIds('h'),
    ...(hook ? { contextAfterTools: hook } : {}),
  });
  const session = new AgentSession(emptyState(), deps, (e) => events.push(e));
  return { session, llm, events };
}

const use = (id: string, name: string, input: unknown) => ({ type: 'tool_use' as const, id, name, input });
const steps = (): Step[] => [
  { content: [use('toolu_1', 'read_file', { path: 'src/ui/a.ts' }), use('toolu_2', 'nope', {})] },
  { content: [{ type: 'text', text: 'done' }] },
];

describe('AgentSession: context after tool rounds (nested instructions hook)', () => {
  it('calls the hook with the round’s calls and puts its injections into the tool-results message', async () => {
    const seen: CompletedToolCall[][] = [];
    const reminder: Injection = { kind: 'system_reminder', origin: 'src/AGENTS.md', text: 'Use tabs in src.' };
    const t = setup(steps(), async (calls) => {
      seen.push([...calls]);
      return [reminder];
    });
    await t.session.send('read it');
    assert.deepEqual(seen, [
      [
        { id: 'toolu_1', name: 'read_file', input: { path: 'src/ui/a.ts' }, isError: false },
        { id: 'toolu_2', name: 'nope', input: {}, isError: true },
      ],
    ]);
    const results = t.session.state.messages[2]!;
    assert.deepEqual(
      results.blocks.map((b) => b.type),
      ['tool_result', 'tool_result', 'text'],
    );
    const injected = results.blocks[2]!;
    assert.equal(injected.meta.source, 'reminder');
    assert.equal(injected.meta.origin, 'src/AGENTS.md');
    assert.ok(injected.type === 'text' && injected.text === '<system-reminder>\nUse tabs in src.\n</system-reminder>');
    const sent = t.llm.requests[1]!.messages[2]!.content as Array<{ type: string; text?: string }>;
    assert.equal(
      sent.at(-1)?.text,
      '<system-reminder>\nUse tabs in src.\n</system-reminder>',
      'the model sees it with the results',
    );
    assert.deepEqual(t.session.state.pending, []);
    assert.deepEqual(checkInvariants(t.session.state), []);
  });

  it('adds nothing when the hook answers nothing, and goes on with a warning when it fails', async () => {
    const none = setup(steps(), async () => []);
    await none.session.send('read it');
    assert.deepEqual(
      none.session.state.messages[2]!.blocks.map((b) => b.type),
      ['tool_result', 'tool_result'],
    );
    const failing = setup(steps(), async () => {
      throw new Error('disk gone');
    });
    await failing.session.send('read it');
    assert.deepEqual(
      failing.session.state.messages[2]!.blocks.map((b) => b.type),
      ['tool_result', 'tool_result'],
    );
    assert.ok(failing.events.some((e) => e.type === 'notice' && e.level === 'warning' && /disk gone/.test(e.text)));
    assert.ok(failing.events.some((e) => e.type === 'turn_finished' && e.reason === 'end_turn'));
  });

  it('shows the hook’s info lines in the chat as info notices', async () => {
    const t = setup(steps(), async (_calls, note) => {
      note('Nested instructions not read: vendor/ (ignored by git).');
      return [];
    });
    await t.session.send('read it');
    assert.ok(
      t.events.some((e) => e.type === 'notice' && e.level === 'info' && /not read: vendor\//.test(e.text)),
      JSON.stringify(t.events.filter((e) => e.type === 'notice')),
    );
  });
});
