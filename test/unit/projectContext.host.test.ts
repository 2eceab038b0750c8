import { strict as assert } from 'node:assert';
import type { TextBlock } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { DEFAULT_INSTRUCTION_SETTINGS } from '../../src/core/projectContext/instructions';
import type { RootFolder, WorkspaceLocation } from '../../src/core/projectContext/paths';
import { agentSystemPrompt } from '../../src/core/projectContext/staticPrompt';
import {
  gatherGitFacts,
  type GitApi,
  type GitRepository,
  type WaitForEvent,
} from '../../src/host/projectContext/gitFacts';
import {
  readRootInstructions,
  type FileProbe,
  type ProjectFiles,
} from '../../src/host/projectContext/instructionReader';
import {
  ProjectContextSession,
  type ProjectContextSettings,
  type SystemTarget,
} from '../../src/host/projectContext/projectContextSession';
import { fakeClock } from './support/builders';
import { Gate } from './support/gate';
import { countingTokenizer, words } from './support/tokenFakes';

type Entry =
  string | Uint8Array | { readonly symlink: 'inside' | 'outside'; readonly text: string } | { readonly size: number };

/** A workspace of in-memory files: keys are `<folder index>:<relative path>`. */
function fakeFiles(
  entries: Record<string, Entry>,
  opts: { trusted?: boolean; roots?: RootFolder[] } = {},
): ProjectFiles & { reads: string[]; set(key: string, e: Entry | undefined): void; trust: boolean } {
  const map = new Map(Object.entries(entries));
  const key = (at: WorkspaceLocation) => `${at.rootIndex}:${at.relative}`;
  const f = {
    reads: [] as string[],
    trust: opts.trusted ?? true,
    set: (k: string, e: Entry | undefined) => void (e === undefined ? map.delete(k) : map.set(k, e)),
    folders: () => opts.roots ?? [{ name: 'app', path: '/ws/app' }],
    trusted: () => f.trust,
    stat: async (at: WorkspaceLocation): Promise<FileProbe> => {
      const e = map.get(key(at));
      if (e === undefined) return { kind: 'missing' };
      if (typeof e === 'string') return { kind: 'file', size: e.length, symlink: false };
      if (e instanceof Uint8Array) return { kind: 'file', size: e.length, symlink: false };
      if ('size' in e) return { kind: 'file', size: e.size, symlink: false };
      return { kind: 'file', size: e.text.length, symlink: true };
    },
    read: async (at: WorkspaceLocation): Promise<Uint8Array> => {
      f.reads.push(key(at));
      const e = map.get(key(at));
      if (typeof e === 'string') return new TextEncoder().encode(e);
      if (e instanceof Uint8Array) return e;
      if (e && 'text' in e) return new TextEncoder().encode(e.text);
      throw new Error('no such file');
    },
    insideWorkspace: async (at: WorkspaceLocation) => {
      const e = map.get(key(at));
      return typeof e === 'object' && 'symlink' in e ? e.symlink === 'inside' : true;
    },
  };
  return f;
}

const settings = (over: Partial<ProjectContextSettings> = {}): ProjectContextSettings => ({
  ...DEFAULT_INSTRUCTION_SETTINGS,
  workspaceFacts: false,
  ...over,
});

describe('project context: reading instruction files', () => {
  it('finds the root files of every folder, in order, each setting switching its own source', async () => {
    const files = fakeFiles(
      {
        '0:AGENTS.md': 'agents',
        '0:CLAUDE.md': 'claude',
        '0:.claude/CLAUDE.md': 'dot claude',
        '0:CLAUDE.local.md': 'local',
        '1:AGENTS.md': 'lib agents',
      },
      {
        roots: [
          { name: 'app', path: '/ws/app' },
          { name: 'lib', path: '/ws/lib' },
        ],
      },
    );
    const all = await readRootInstructions(files, settings());
    assert.deepEqual(
      all.files.map((f) => f.origin),
      ['app/AGENTS.md', 'app/CLAUDE.md', 'app/.claude/CLAUDE.md', 'app/CLAUDE.local.md', 'lib/AGENTS.md'],
    );
    assert.deepEqual(
      (await readRootInstructions(files, settings({ agentsMd: false }))).files.map((f) => f.origin),
      ['app/CLAUDE.md', 'app/.claude/CLAUDE.md', 'app/CLAUDE.local.md'],
    );
    assert.deepEqual(
      (await readRootInstructions(files, settings({ claudeMd: false }))).files.map((f) => f.origin),
      ['app/AGENTS.md', 'app/CLAUDE.local.md', 'lib/AGENTS.md'],
    );
    assert.deepEqual(
      (await readRootInstructions(files, settings({ claudeLocalMd: false }))).files.map((f) => f.origin),
      ['app/AGENTS.md', 'app/CLAUDE.md', 'app/.claude/CLAUDE.md', 'lib/AGENTS.md'],
    );
  });

  it('reads nothing in an untrusted workspace', async () => {
    const files = fakeFiles({ '0:AGENTS.md': 'agents' }, { trusted: false });
    const r = await readRootInstructions(files, settings());
    assert.equal(r.untrusted, true);
    assert.deepEqual(r.files, []);
    assert.deepEqual(files.reads, []);
  });

  it('skips oversized, binary and outside-pointing files with a reason; cleans bad UTF-8; drops a duplicate', async () => {
    const files = fakeFiles({
      '0:AGENTS.md': new Uint8Array([...new TextEncoder().encode('Use tabs everywhere '), 0xff, 0x21]),
      '0:CLAUDE.md': { size: 2_000_000 },
      '0:.claude/CLAUDE.md': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1]),
      '0:CLAUDE.local.md': { symlink: 'outside', text: 'secret' },
    });
    const r = await readRootInstructions(files, settings());
    assert.deepEqual(r.files, [{ origin: 'AGENTS.md', text: 'Use tabs everywhere \ufffd!' }]);
    assert.deepEqual(
      r.skipped.map((s) => [s.origin, s.reason.split(' (')[0]]),
      [
        ['CLAUDE.md', 'it is larger than 1 MB'],
        ['.claude/CLAUDE.md', 'it looks like a binary file'],
        ['CLAUDE.local.md', 'it leads outside the workspace through a symbolic link'],
      ],
    );
    assert.ok(
      !files.reads.includes('0:CLAUDE.md') && !files.reads.includes('0:CLAUDE.local.md'),
      'skipped files are not read',
    );
    const dup = await readRootInstructions(
      fakeFiles({ '0:AGENTS.md': 'same', '0:CLAUDE.md': { symlink: 'inside', text: 'same' } }),
      settings(),
    );
    assert.deepEqual(
      dup.files.map((f) => f.origin),
      ['AGENTS.md'],
    );
    assert.match(dup.skipped[0]?.reason ?? '', /same content as AGENTS\.md/);
  });
});

/** A fake Git API whose state and repositories a test sets; events fire when the test says. */
function fakeGit(state: GitApi['state'], repos: GitRepository[]): GitApi & { init(): void } {
  const listeners: Array<(s: GitApi['state']) => unknown> = [];
  const api = {
    state,
    repositories: repos,
    onDidChangeState: (l: (s: GitApi['state']) => unknown) => {
      listeners.push(l);
      return { dispose: () => undefined };
    },
    init: () => {
      api.state = 'initialized';
      for (const l of listeners) l('initialized');
    },
  };
  return api;
}

const repo = (root: string, over: Partial<GitRepository['state']> = {}, log: string[] = []): GitRepository => ({
  rootUri: { fsPath: root },
  state: {
    HEAD: { name: 'main', upstream: { remote: 'origin', name: 'main' }, ahead: 1, behind: 2 },
    indexChanges: [],
    workingTreeChanges: [],
    mergeChanges: [],
    onDidChange: () => ({ dispose: () => undefined }),
    ...over,
  },
  log: async (o) => log.slice(0, o?.maxEntries).map((message, i) => ({ hash: `h${i}`, message })),
});

/** A wait that never touches the clock: it resolves when the event fires, or "times out" when the test opens the gate. */
function gatedWait(timeout = new Gate()): WaitForEvent & { waits: number } {
  const w = Object.assign(
    (subscribe: (fire: () => void) => { dispose(): void }) =>
      new Promise<boolean>((resolve) => {
        w.waits++;
        subscribe(() => resolve(true));
        void timeout.wait().then(() => resolve(false));
      }),
    { waits: 0 },
  );
  return w;
}

describe('project context: git facts (fake Git API)', () => {
  const roots = [{ name: 'app', path: '/ws/app' }];

  it('reads branch, upstream, ahead/behind, changed files and the last 5 commit subjects', async () => {
    const changes = Array.from({ length: 25 }, (_, i) => ({ uri: { fsPath: `/ws/app/src/f${i}.ts` } }));
    const r = await gatherGitFacts(
      fakeGit('initialized', [
        repo('/ws/app', { workingTreeChanges: changes, indexChanges: [{ uri: { fsPath: '/ws/app/src/f0.ts' } }] }, [
          'one\nbody',
          'two',
          'three',
          'four',
          'five',
          'six',
        ]),
      ]),
      roots,
      gatedWait(),
    );
    assert.equal(r.repositories.length, 1);
    const f = r.repositories[0]!;
    assert.equal(f.root, '.');
    assert.equal(f.branch, 'main');
    assert.equal(f.upstream, 'origin/main');
    assert.deepEqual([f.ahead, f.behind], [1, 2]);
    assert.equal(f.changedCount, 25, 'a file both staged and changed counts once');
    assert.equal(f.changed.length, 20);
    assert.equal(f.changed[0], 'src/f0.ts');
    assert.deepEqual(f.commits, ['one', 'two', 'three', 'four', 'five']);
  });

  it('waits for the API to initialise (an injected wait, no clock), and leaves out repositories outside the workspace', async () => {
    const git = fakeGit('uninitialized', [repo('/ws/app'), repo('/elsewhere')]);
    const wait = gatedWait();
    const pending = gatherGitFacts(git, roots, wait);
    await Promise.resolve();
    git.init();
    const r = await pending;
    assert.equal(wait.waits, 1);
    assert.deepEqual(
      r.repositories.map((x) => x.root),
      ['.'],
    );
  });

  it('says why there are no facts: no API, never initialised, no repository', async () => {
    assert.match((await gatherGitFacts(undefined, roots, gatedWait())).note ?? '', /not available/);
    const timeout = new Gate();
    timeout.open();
    assert.match(
      (await gatherGitFacts(fakeGit('uninitialized', []), roots, gatedWait(timeout))).note ?? '',
      /did not finish starting/,
    );
    assert.match(
      (await gatherGitFacts(fakeGit('initialized', []), roots, gatedWait())).note ?? '',
      /no git repository/,
    );
  });
});

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

function session(files: ProjectFiles, over: Partial<ProjectContextSettings> = {}, git?: GitApi) {
  return new ProjectContextSession({
    files,
    git: async () => git,
    wait: gatedWait(),
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
