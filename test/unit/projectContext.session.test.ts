import { strict as assert } from 'node:assert';
import type { TextBlock } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import type { WorkspaceLocation } from '../../src/core/projectContext/paths';
import { agentSystemPrompt } from '../../src/core/projectContext/staticPrompt';
import { type GitApi } from '../../src/host/projectContext/gitFacts';
import { type ProjectFiles } from '../../src/host/projectContext/instructionReader';
import {
  ProjectContextSession,
  type ProjectContextSettings,
  type SystemTarget,
} from '../../src/host/projectContext/projectContextSession';
import { fakeClock } from './support/builders';
import { countingTokenizer, words } from './support/tokenFakes';
import { Gate } from './support/gate';
import { fakeFiles, fakeGit, gatedWait, repo, settings } from './support/projectContextFakes';

/** An agent stand-in: its system prompt, and whether a turn runs. */
function fakeAgent(): SystemTarget & { system: readonly TextBlock[]; updates: number; busyNow: boolean } {
  const a = {
    system: [agentSystemPrompt({ clock: fakeClock(), ids: counterIds('ag') })] as readonly TextBlock[],
    updates: 0,
    busyNow: false,
    get busy() {
      return a.busyNow;
    },
    get state() {
      return { system: a.system };
    },
    update: (patch: { system: readonly TextBlock[] }) => {
      a.system = patch.system;
      a.updates++;
    },
  };
  return a;
}

function session(files: ProjectFiles, over: Partial<ProjectContextSettings> = {}, git?: GitApi, wait = gatedWait()) {
  return new ProjectContextSession({
    files,
    git: async () => git,
    wait,
    settings: () => settings(over),
    platform: 'linux',
    clock: fakeClock(new Date(2026, 2, 4, 10).getTime()),
    ids: counterIds('pcs'),
    tokenizer: countingTokenizer(),
  });
}

describe('project context: the session', () => {
  it('reads once (memoised), puts instructions then facts after the static prompt, and says what it did once', async () => {
    const files = fakeFiles({ '0:AGENTS.md': 'Use tabs.' });
    const s = session(files, { workspaceFacts: true }, fakeGit('initialized', [repo('/ws/app')]));
    const agent = fakeAgent();
    await Promise.all([s.load(), s.load()]);
    assert.equal(files.reads.length, 1);
    const notices = await s.ready(agent);
    assert.deepEqual(
      agent.system.map((b) => b.meta.source),
      ['system', 'instructions', 'workspace'],
    );
    assert.match(
      agent.system[2]!.text,
      /Date at session start: 2026-03-04\nGit repository \.:\n- branch main, tracking origin\/main \(1 ahead, 2 behind\)/,
    );
    assert.deepEqual(
      notices.map((n) => n.text),
      ['Project instructions in the system prompt: AGENTS.md (5 tokens).'],
    );
    assert.deepEqual(await s.ready(agent), [], 'notices are shown once');
    assert.equal(agent.updates, 1, 'an unchanged project context is not applied again');
    assert.equal(files.reads.length, 1);
  });

  it('says once that an untrusted workspace is not read, and a cap that cuts', async () => {
    const untrusted = session(fakeFiles({ '0:AGENTS.md': 'x' }, { trusted: false }));
    const n = await untrusted.ready(fakeAgent());
    assert.equal(n.length, 1);
    assert.match(n[0]!.text, /not trusted/);
    const capped = session(fakeFiles({ '0:AGENTS.md': words(50) }), { maxTokens: 20 });
    const warnings = (await capped.ready(fakeAgent())).filter((x) => x.level === 'warning');
    assert.match(
      warnings[0]?.text ?? '',
      /exceed contextPipeline\.instructions\.maxTokens \(20\): AGENTS\.md cut to \d+ of 5\d tokens/,
    );
  });

  it('a first read slower than the bound: the message goes without it, says so once, and the next one takes it', async () => {
    const files = fakeFiles({ '0:AGENTS.md': 'Use tabs.' });
    const slowDisk = new Gate();
    const slowFiles = { ...files, stat: (at: WorkspaceLocation) => slowDisk.wait().then(() => files.stat(at)) };
    const timeout = new Gate();
    const s = session(slowFiles, {}, undefined, gatedWait(timeout));
    const agent = fakeAgent();
    const before = agent.system;
    const first = s.ready(agent);
    timeout.open();
    const late = await first;
    assert.equal(late.length, 1);
    assert.match(late[0]!.text, /still being read.*went without them.*from the next message/);
    assert.equal(agent.system, before, 'the system prompt is untouched');
    assert.deepEqual(await s.ready(agent), [], 'said once');
    slowDisk.open();
    await s.load();
    const notices = await s.ready(agent);
    assert.match(notices.map((n) => n.text).join(' '), /AGENTS\.md/);
    assert.ok(
      agent.system.some((b) => b.text.includes('Use tabs.')),
      'the next message has the instructions',
    );
  });

  it('reload says what changed, and waits for the next turn when one runs', async () => {
    const files = fakeFiles({ '0:AGENTS.md': 'Use tabs.' });
    const s = session(files);
    const agent = fakeAgent();
    await s.ready(agent);
    assert.deepEqual(
      (await s.reload(agent)).map((n) => n.text),
      ['Project context reloaded: nothing changed.'],
    );
    files.set('0:AGENTS.md', 'Use spaces, four of them.');
    files.set('0:CLAUDE.md', 'Be brief.');
    agent.busyNow = true;
    const [change] = await s.reload(agent);
    assert.match(
      change?.text ?? '',
      /^Project context reloaded: CLAUDE\.md added \(\+\d+ tokens\); AGENTS\.md changed \(\d+ → \d+ tokens, \+3\); workspace facts unchanged\. It applies from the next turn/,
    );
    assert.doesNotMatch(agent.system.map((b) => b.text).join(), /Be brief/, 'not while the turn runs');
    agent.busyNow = false;
    await s.ready(agent);
    assert.deepEqual(
      agent.system.map((b) => b.meta.origin ?? b.meta.source),
      ['system', 'AGENTS.md', 'CLAUDE.md'],
    );
  });

  it('after tool rounds, injects each nested instruction file once per session, outermost first', async () => {
    const files = fakeFiles({
      '0:src/AGENTS.md': 'src rules',
      '0:src/ui/CLAUDE.md': 'ui rules',
      '0:AGENTS.md': 'root',
    });
    const s = session(files);
    const call = (path: string, isError = false) => ({ id: `t-${path}`, name: 'read_file', input: { path }, isError });
    const first = await s.afterTools([call('src/ui/button.ts')]);
    assert.deepEqual(
      first.map((i) => (i.kind === 'system_reminder' ? i.origin : '')),
      ['src/AGENTS.md', 'src/ui/CLAUDE.md'],
    );
    assert.deepEqual(await s.afterTools([call('src/ui/other.ts'), call('src/x.ts')]), [], 'each folder once');
    assert.deepEqual(await s.afterTools([call('lib/a.ts', true)]), [], 'a failed read adds nothing');
    assert.deepEqual(await session(files, { nested: false }).afterTools([call('src/ui/button.ts')]), []);
    assert.deepEqual(
      await session(fakeFiles({ '0:src/AGENTS.md': 'x' }, { trusted: false })).afterTools([call('src/a.ts')]),
      [],
    );
    const resumed = session(files);
    resumed.seed([
      {
        id: 'm',
        role: 'user',
        turn: 1,
        blocks: [
          {
            type: 'text',
            text: '…',
            meta: {
              id: 'b',
              tier: 0,
              source: 'reminder',
              origin: 'src/AGENTS.md',
              createdAt: 0,
              pinned: false,
              compactable: true,
            },
          },
        ],
      },
    ]);
    assert.deepEqual(
      (await resumed.afterTools([call('src/ui/button.ts')])).map((i) => (i.kind === 'system_reminder' ? i.origin : '')),
      ['src/ui/CLAUDE.md'],
      'a resumed session remembers what its history carries',
    );
  });
});
