import { strict as assert } from 'node:assert';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { listFilesTool } from '../../src/host/tools/listFiles';
import { cleanTempDirs, expectError, expectOk, tempDir, toolContext, writeTree } from './support/toolsWorkspace';

describe('tools: list_files', () => {
  let ws: string;
  beforeEach(async () => {
    ws = await tempDir();
    await writeTree(ws, {
      '.gitignore': 'node_modules/\n*.log\ndist\n',
      '.git/HEAD': 'ref: refs/heads/main',
      'README.md': '#',
      'app.log': 'ignored',
      'node_modules/pkg/index.js': '',
      'dist/out.js': '',
      'src/a.ts': '',
      'src/b.js': '',
      'src/gen/.gitignore': '*.gen.ts\n!keep.gen.ts\n',
      'src/gen/x.gen.ts': '',
      'src/gen/keep.gen.ts': '',
      'src/gen/real.ts': '',
      'src/sub/.gitignore': '!important.log\n',
      'src/sub/important.log': '',
      'src/sub/other.log': '',
      'secret/.env': 'KEY=1',
      'build/tmp.txt': '',
    });
  });
  afterEach(cleanTempDirs);

  it("lists a folder's direct entries, sorted, folders with a slash, hidden ones left out", async () => {
    const text = expectOk(await listFilesTool({}, toolContext([ws]), {}));
    assert.deepEqual(text.split('\n'), ['.gitignore', 'README.md', 'build/', 'secret/', 'src/']);
  });

  it('lists a subfolder with workspace-relative paths', async () => {
    const text = expectOk(await listFilesTool({ path: 'src' }, toolContext([ws]), {}));
    assert.deepEqual(text.split('\n'), ['src/a.ts', 'src/b.js', 'src/gen/', 'src/sub/']);
  });

  it('respects nested .gitignore files, including negations, with a glob', async () => {
    const text = expectOk(await listFilesTool({ glob: '**/*' }, toolContext([ws]), {}));
    assert.deepEqual(text.split('\n'), [
      '.gitignore',
      'README.md',
      'build/tmp.txt',
      'secret/.env',
      'src/a.ts',
      'src/b.js',
      'src/gen/.gitignore',
      'src/gen/keep.gen.ts',
      'src/gen/real.ts',
      'src/sub/.gitignore',
      'src/sub/important.log',
    ]);
  });

  it('respects files.exclude (only entries set to true)', async () => {
    const text = expectOk(
      await listFilesTool({ glob: '**/*' }, toolContext([ws]), {
        '**/secret': true,
        build: true,
        '**/*.js': false,
        '**/.gitignore': true,
      }),
    );
    assert.deepEqual(text.split('\n'), [
      'README.md',
      'src/a.ts',
      'src/b.js',
      'src/gen/keep.gen.ts',
      'src/gen/real.ts',
      'src/sub/important.log',
    ]);
  });

  it('matches the glob relative to path, and hints at **/ when a bare glob finds nothing', async () => {
    assert.deepEqual(
      expectOk(await listFilesTool({ path: 'src', glob: '**/*.ts' }, toolContext([ws]), {})).split('\n'),
      ['src/a.ts', 'src/gen/keep.gen.ts', 'src/gen/real.ts'],
    );
    assert.deepEqual(
      expectOk(await listFilesTool({ path: 'src', glob: '*.{ts,js}' }, toolContext([ws]), {})).split('\n'),
      ['src/a.ts', 'src/b.js'],
    );
    assert.match(
      expectOk(await listFilesTool({ glob: '*.ts' }, toolContext([ws]), {})),
      /No files under \. match "\*\.ts".*use "\*\*\/\*\.ts"/,
    );
  });

  it('caps the listing with a note', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 30; i++) many[`many/f${String(i).padStart(2, '0')}.txt`] = '';
    await writeTree(ws, many);
    const text = expectOk(
      await listFilesTool({ path: 'many', glob: '**' }, toolContext([ws], { listMaxEntries: 10 }), {}),
    );
    const [body, note] = text.split('\n\n');
    assert.deepEqual(
      body?.split('\n'),
      Array.from({ length: 10 }, (_, i) => `many/f${String(i).padStart(2, '0')}.txt`),
    );
    assert.match(note ?? '', /Showing the first 10 entries; more exist/);
  });

  it('lists an ignored folder when asked for it explicitly, with a note', async () => {
    const text = expectOk(await listFilesTool({ path: 'node_modules' }, toolContext([ws]), {}));
    assert.match(text, /^node_modules\/pkg\/\n\n\[node_modules is hidden by \.gitignore; it is listed anyway/);
  });

  it('never lists .git, and does not follow symlinked folders', async () => {
    const outside = await tempDir('cp-outside-');
    await writeTree(outside, { 'deep/secret.txt': '' });
    await symlink(outside, join(ws, 'src', 'out-link'));
    const text = expectOk(await listFilesTool({ glob: '**/*' }, toolContext([ws]), {}));
    assert.ok(!text.includes('.git/'), text);
    assert.ok(!text.includes('secret.txt'), text);
    assert.ok(expectOk(await listFilesTool({ path: 'src' }, toolContext([ws]), {})).includes('src/out-link/'));
    assert.match(expectError(await listFilesTool({ path: 'src/out-link' }, toolContext([ws]), {})), /symbolic link/);
  });

  it('explains a missing path or a file given as path', async () => {
    assert.match(expectError(await listFilesTool({ path: 'nope' }, toolContext([ws]), {})), /nope does not exist/);
    assert.match(
      expectError(await listFilesTool({ path: 'README.md' }, toolContext([ws]), {})),
      /is a file, not a folder; use read_file/,
    );
  });

  it('multi-root: lists the folders, and globs across all of them with folder-name prefixes', async () => {
    const other = await tempDir('cp-other-');
    await writeTree(other, { 'lib/x.ts': '' });
    const [wsName, otherName] = [ws, other].map((p) => p.split('/').pop() as string);
    assert.equal(expectOk(await listFilesTool({}, toolContext([ws, other]), {})), `${wsName}/\n${otherName}/`);
    const text = expectOk(await listFilesTool({ glob: '**/*.ts' }, toolContext([ws, other]), {}));
    assert.ok(text.includes(`${otherName}/lib/x.ts`) && text.includes(`${wsName}/src/a.ts`), text);
  });

  it('honours an aborted signal', async () => {
    const abort = new AbortController();
    abort.abort();
    assert.match(
      expectError(await listFilesTool({ glob: '**' }, toolContext([ws], {}, abort.signal), {})),
      /stopped by the user/,
    );
  });
});
