import { strict as assert } from 'node:assert';
import { LiveTransport } from '../../src/app/liveTransport';
import { DEFAULT_MODEL } from '../../src/core/pipeline/config';
import { fakeChat } from './support/chatServiceFakes';
import { Gate } from './support/gate';

const toolUse = (id: string) => ({ type: 'tool_use' as const, id, name: 'list_files', input: {} });

describe('ChatService: settings changed mid-session', () => {
  it('the next request uses a changed base URL, tool-round limit and model', async () => {
    const t = fakeChat();
    await t.service.send('one');
    t.settings.change({
      agent: { baseUrl: 'https://two.example', maxToolRounds: 9 },
      pipeline: { model: 'claude-opus-4-1' },
    });
    await t.service.send('two');
    assert.deepEqual(
      t.agents.seen.map((s) => [s.lastUserText, s.baseUrl, s.maxToolRounds, s.model]),
      [
        ['one', 'https://one.example', 5, DEFAULT_MODEL],
        ['two', 'https://two.example', 9, 'claude-opus-4-1'],
      ],
    );
    assert.deepEqual(t.agents.clientsMade, ['https://one.example', 'https://two.example']);
    assert.ok(t.logLines.includes('Settings changed (baseUrl, maxToolRounds): the next request uses them.'));
  });

  it('a turn in flight finishes with the settings it started with; the next turn takes the new ones', async () => {
    const t = fakeChat();
    const hold = new Gate();
    t.agents.answers.push({ content: [toolUse('toolu_1')], hold }, { content: [{ type: 'text', text: 'done' }] });
    const first = t.service.send('one');
    await t.agents.requests.reached(1);
    t.settings.change({ agent: { baseUrl: 'https://two.example', maxToolRounds: 2 } });
    hold.open();
    await first;
    await t.service.send('two');
    assert.deepEqual(
      t.agents.seen.map((s) => [s.baseUrl, s.maxToolRounds]),
      [
        ['https://one.example', 5],
        ['https://one.example', 5],
        ['https://two.example', 2],
      ],
    );
  });

  it("the agent's loop stops at the tool-round limit in force when its turn started", async () => {
    const t = fakeChat();
    t.settings.change({ agent: { maxToolRounds: 1 } });
    const loop = (tag: string) => Array.from({ length: 10 }, (_, i) => ({ content: [toolUse(`toolu_${tag}${i}`)] }));
    t.agents.answers.push(...loop('a'));
    await t.service.send('one');
    const first = t.agents.seen.length;
    t.settings.change({ agent: { maxToolRounds: 3 } });
    t.agents.answers.splice(0, t.agents.answers.length, ...loop('b'));
    await t.service.send('two');
    assert.deepEqual([first, t.agents.seen.length - first], [1, 3]);
  });

  it('while a turn runs, the header names the endpoint its requests still go to, and says how to stop it (issue 34 #3)', async () => {
    const t = fakeChat();
    const hold = new Gate();
    t.agents.answers.push({ content: [toolUse('toolu_1')], hold }, { content: [{ type: 'text', text: 'done' }] });
    const first = t.service.send('one');
    await t.agents.requests.reached(1);
    t.settings.change({ agent: { baseUrl: '' } });
    await t.service.postStatus();
    const during = t.posts.filter((p) => p.type === 'status').at(-1);
    assert.ok(during?.type === 'status');
    assert.equal(during.baseUrl, 'https://one.example', 'the old endpoint is shown: requests still go there');
    assert.ok(during.endpoint, 'its banner stays');
    assert.match(
      during.warnings.join(' '),
      /this turn goes on sending to https:\/\/one\.example until it ends: press Stop/,
    );
    hold.open();
    await first;
    await t.service.postStatus();
    const after = t.posts.filter((p) => p.type === 'status').at(-1);
    assert.ok(after?.type === 'status');
    assert.equal(after.baseUrl, undefined);
    assert.equal(after.endpoint, undefined);
    assert.doesNotMatch(after.warnings.join(' '), /goes on sending/);
  });

  it('the header shows the new base URL once the settings changed', async () => {
    const t = fakeChat();
    await t.service.onReady();
    t.settings.change({ agent: { baseUrl: 'https://two.example' } });
    await t.service.postStatus();
    const last = t.posts.filter((p) => p.type === 'status').at(-1);
    assert.equal(last?.type === 'status' ? last.baseUrl : undefined, 'https://two.example');
  });
});

describe('LiveTransport', () => {
  it('forwards to the client of the base URL applied last and makes a client only when it changed', async () => {
    const made: string[] = [];
    const calls: string[] = [];
    const transport = new LiveTransport(
      (baseUrl) => {
        made.push(baseUrl);
        return {
          stream: async () => {
            calls.push(baseUrl);
            return { ok: false as const, error: { kind: 'aborted' as const, message: 'x', retryable: false } };
          },
        };
      },
      { baseUrl: 'a', maxToolRounds: 3 },
    );
    const opts = { signal: new AbortController().signal, onEvent: () => undefined };
    const params = { model: 'm', max_tokens: 1, messages: [] };
    await transport.llm.stream(params, opts);
    assert.deepEqual(transport.apply({ baseUrl: 'a', maxToolRounds: 4 }), ['maxToolRounds']);
    assert.deepEqual(transport.apply({ baseUrl: 'b', maxToolRounds: 4 }), ['baseUrl']);
    await transport.llm.stream(params, opts);
    assert.deepEqual(made, ['a', 'b']);
    assert.deepEqual(calls, ['a', 'b']);
    assert.equal(transport.maxToolRounds, 4);
  });

  it("a change to the project-context settings reads the open session's instructions again, and opens none", async () => {
    const t = fakeChat();
    await t.service.projectSettingsChanged();
    assert.equal(t.agents.projectReloads, 0, 'no session: nothing to read, and none is opened for it');
    assert.equal(t.agents.seen.length, 0);
    await t.service.send('one');
    await t.service.projectSettingsChanged();
    assert.equal(t.agents.projectReloads, 1);
    assert.ok(
      t.posts.some(
        (p) => p.type === 'upsert' && p.item.kind === 'notice' && p.item.text === 'Project context read again (1).',
      ),
      'what changed is said in the chat',
    );
  });
});
