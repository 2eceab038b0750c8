import { strict as assert } from 'node:assert';
import { gatherGitFacts } from '../../src/host/projectContext/gitFacts';
import { readRootInstructions } from '../../src/host/projectContext/instructionReader';
import { Gate } from './support/gate';
import { fakeFiles, fakeGit, gatedWait, repo, settings } from './support/projectContextFakes';

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
    assert.equal(wait.waits, 2, "for the API, then for the one repository's log");
    assert.deepEqual(
      r.repositories.map((x) => x.root),
      ['.'],
    );
  });

  it('a log that never answers costs only the recent commits, after the bounded wait', async () => {
    const hanging = new Gate();
    const slow = { ...repo('/ws/app'), log: () => hanging.wait().then(() => []) };
    const timeout = new Gate();
    const wait = gatedWait(timeout);
    const pending = gatherGitFacts(fakeGit('initialized', [slow]), roots, wait);
    let done = false;
    void pending.then(() => (done = true));
    await new Promise<void>((r) => setImmediate(r)); // every pending microtask ran
    assert.equal(done, false, 'it waits for the log first');
    assert.equal(wait.waits, 1, 'through the injected wait');
    timeout.open();
    const r = await pending;
    assert.equal(r.repositories[0]?.branch, 'main', 'the other facts stay');
    assert.deepEqual(r.repositories[0]?.commits, []);
    const failing = { ...repo('/ws/app'), log: () => Promise.reject(new Error('no commits yet')) };
    assert.deepEqual(
      (await gatherGitFacts(fakeGit('initialized', [failing]), roots, gatedWait())).repositories[0]?.commits,
      [],
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
