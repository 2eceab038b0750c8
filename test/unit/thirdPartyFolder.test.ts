/**
 * Nested instructions from other projects' folders (issue 34 #2): decided by the folder's name
 * in any letter case (core) and by what the folder is (host: ignored, excluded, a virtual
 * environment, a cache, a submodule, a link out), on a real temporary folder.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insideDependencies } from '../../src/core/projectContext/nested';
import { ThirdPartyFolders } from '../../src/host/projectContext/thirdPartyFolder';
import { ProjectContextSession } from '../../src/host/projectContext/projectContextSession';
import type { WorkspaceLocation } from '../../src/core/projectContext/paths';

describe('nested instructions: other projects’ folders', () => {
  it('knows dependency, environment and build folders by name, in any letter case', () => {
    for (const f of [
      'Node_Modules/pkg',
      'deps/zlib',
      'build/_deps/fmt-src',
      '.terraform/modules/vpc',
      '.tox/py312/lib',
      'env/lib/python3.12',
      'target/debug',
      'VENDOR/x',
      'external/sub',
    ])
      assert.equal(insideDependencies(f), true, f);
    for (const f of ['src', 'packages/web', 'docs/environment', 'src/targets', 'app/envs'])
      assert.equal(insideDependencies(f), false, f);
  });

  describe('by what the folder is', () => {
    let root: string;
    before(() => {
      root = mkdtempSync(join(tmpdir(), 'cp-thirdparty-'));
      const dir = (rel: string) => mkdirSync(join(root, rel), { recursive: true });
      dir('src/app');
      dir('py/.venv-custom');
      writeFileSync(join(root, 'py/.venv-custom/pyvenv.cfg'), 'home = /usr/bin\n');
      dir('cache/tool');
      writeFileSync(join(root, 'cache/tool/CACHEDIR.TAG'), 'Signature: 8a477f597d28d172789f06886806bc55\n');
      dir('libs/sub');
      writeFileSync(join(root, 'libs/sub/.git'), 'gitdir: ../../.git/modules/sub\n');
      dir('generated/out');
      writeFileSync(join(root, '.gitignore'), 'generated/\n');
      dir('hidden/stuff');
      dir('node_modules/pkg');
      symlinkSync(join(root, 'node_modules/pkg'), join(root, 'src/linked'), 'dir');
      const outside = mkdtempSync(join(tmpdir(), 'cp-outside-'));
      symlinkSync(outside, join(root, 'src/away'), 'dir');
    });
    after(() => rmSync(root, { recursive: true, force: true }));

    it('says why a folder is another project’s, and leaves the project’s own alone', async () => {
      const t = new ThirdPartyFolders(() => ({ 'hidden/**': true }));
      const cases: Record<string, RegExp | undefined> = {
        src: undefined,
        'src/app': undefined,
        'py/.venv-custom': /virtual environment \(pyvenv\.cfg\)/,
        'cache/tool': /cache folder \(CACHEDIR\.TAG\)/,
        'libs/sub': /git submodule/,
        'generated/out': /ignored by git/,
        'hidden/stuff': /files\.exclude or search\.exclude/,
        'src/linked': /a link into node_modules\/pkg/,
        'src/away': /outside the workspace/,
      };
      for (const [rel, why] of Object.entries(cases)) {
        const r = await t.reason(root, rel);
        if (why === undefined) assert.equal(r, undefined, rel);
        else assert.match(r ?? '', why, rel);
      }
    });
  });

  it('a session reads nothing at or below a folder found to be another project’s, in any later round', async () => {
    const files = new Map([
      ['src/AGENTS.md', 'ours'],
      ['src/gen/AGENTS.md', 'theirs'],
      ['src/gen/deep/AGENTS.md', 'theirs too'],
    ]);
    const logs: string[] = [];
    const s = new ProjectContextSession({
      files: {
        folders: () => [{ name: 'ws', path: '/ws' }],
        trusted: () => true,
        stat: async (at: WorkspaceLocation) => {
          const t = files.get(at.relative);
          return t === undefined ? { kind: 'missing' } : { kind: 'file', size: t.length, symlink: false };
        },
        read: async (at: WorkspaceLocation) => new TextEncoder().encode(files.get(at.relative) ?? ''),
        thirdPartyJudge: () => async (at: WorkspaceLocation) =>
          at.relative === 'src/gen' ? 'ignored by git (.gitignore)' : undefined,
      },
      settings: () => ({
        agentsMd: true,
        claudeMd: true,
        claudeLocalMd: true,
        nested: true,
        maxTokens: 1_000,
        workspaceFacts: false,
      }),
      tokenizer: { name: 'chars', count: (t: string) => t.length },
      clock: { now: () => 0 },
      ids: { next: (p: string) => `${p}-1` },
      log: (l: string) => logs.push(l),
    } as unknown as ConstructorParameters<typeof ProjectContextSession>[0]);
    const call = (path: string) => ({ id: `t-${path}`, name: 'read_file', input: { path }, isError: false });
    const notes: string[] = [];
    const first = await s.afterTools([call('src/gen/x.ts')], (t) => notes.push(t));
    assert.deepEqual(
      first.map((i) => (i.kind === 'system_reminder' ? i.origin : '')),
      ['src/AGENTS.md'],
    );
    assert.deepEqual(
      notes,
      ['Nested instructions not read: src/gen/AGENTS.md (ignored by git (.gitignore)).'],
      'the chat is told in one line, naming the file left out',
    );
    assert.deepEqual(
      await s.afterTools([call('src/gen/deep/y.ts')], (t) => notes.push(t)),
      [],
      'a later round does not read below it',
    );
    assert.equal(
      notes[1],
      'Nested instructions not read: src/gen/deep/AGENTS.md (inside src/gen/, ignored by git (.gitignore)).',
    );
    assert.deepEqual(await s.afterTools([call('src/gen/deep/z.ts')], (t) => notes.push(t)), []);
    assert.equal(notes.length, 2, 'a folder is told about once');
    assert.ok(
      logs.some((l) => /src\/gen\/AGENTS\.md not read: ignored by git/.test(l)),
      logs.join(' | '),
    );
  });
});
