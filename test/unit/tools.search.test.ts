import { strict as assert } from 'node:assert';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { compilePattern, matchWindow, searchTool } from '../../src/host/tools/search';
import { cleanTempDirs, expectError, expectOk, tempDir, toolContext, writeTree } from './support/toolsWorkspace';

describe('tools: search', () => {
  let ws: string;
  beforeEach(async () => {
    ws = await tempDir();
    await writeTree(ws, {
      '.gitignore': 'ignored/\n',
      'src/a.ts': 'export function alpha() {}\nconst x = alpha();\n',
      'src/b.js': 'function beta() { return ALPHA; }\r\nalpha\r\n',
      'src/c.ts': 'nothing here\n',
      'ignored/hit.ts': 'alpha\n',
      'bin/data.bin': new Uint8Array([0, 1, 2, 97, 108, 112, 104, 97, 0]),
      'big.txt': `${'filler\n'.repeat(200)}alpha\n`,
    });
  });
  afterEach(cleanTempDirs);

  it('finds regex matches as path:line: text, with a summary', async () => {
    const text = expectOk(await searchTool({ pattern: 'alpha\\(' }, toolContext([ws]), {}));
    assert.equal(
      text,
      'src/a.ts:1: export function alpha() {}\nsrc/a.ts:2: const x = alpha();\n\n[2 matches in 1 file.]',
    );
  });

  it('supports case-insensitive and literal searches, and CRLF files', async () => {
    const text = expectOk(
      await searchTool({ pattern: 'alpha', case_sensitive: false, path: 'src/b.js' }, toolContext([ws]), {}),
    );
    assert.equal(text.split('\n\n')[0], 'src/b.js:1: function beta() { return ALPHA; }\nsrc/b.js:2: alpha');
    assert.match(
      expectOk(await searchTool({ pattern: 'alpha();', literal: true }, toolContext([ws]), {})),
      /^src\/a\.ts:2: const x = alpha\(\);/,
    );
  });

  it('skips ignored and binary files, and files over the size limit', async () => {
    const text = expectOk(
      await searchTool({ pattern: '^alpha$' }, toolContext([ws], { searchMaxFileBytes: 1000 }), {}),
    );
    assert.equal(
      text,
      'src/b.js:2: alpha\n\n[1 match in 1 file.]\n[Skipped 1 file larger than 1.0 KB; use read_file with offset/limit for those.]',
    );
  });

  it('filters by glob relative to path, and by files.exclude', async () => {
    assert.match(
      expectOk(await searchTool({ pattern: 'alpha', glob: '**/*.js', case_sensitive: false }, toolContext([ws]), {})),
      /^src\/b\.js:1:/,
    );
    const text = expectOk(await searchTool({ pattern: 'alpha', path: 'src' }, toolContext([ws]), { '**/a.ts': true }));
    assert.ok(!text.includes('a.ts'), text);
  });

  it('reports a bad regex clearly', async () => {
    const text = expectError(await searchTool({ pattern: 'foo(' }, toolContext([ws]), {}));
    assert.match(
      text,
      /^search: invalid regular expression \(.*\)\. Escape special characters .* or set literal: true/,
    );
    assert.equal(
      typeof compilePattern({ pattern: '\\p{L}+' }),
      'object',
      'unicode property escapes compile with the u flag',
    );
  });

  it('says when nothing matched, with a hint about /slashes/', async () => {
    assert.match(
      expectOk(await searchTool({ pattern: 'zzz' }, toolContext([ws]), {})),
      /^No matches for "zzz" in \. \(\d+ files searched\)\.$/,
    );
    assert.match(
      expectOk(await searchTool({ pattern: '/zzz/i' }, toolContext([ws]), {})),
      /includes the surrounding slashes/,
    );
  });

  it('stops at the match cap and says there are more', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 20; i++) many[`many/f${String(i).padStart(2, '0')}.txt`] = 'hit\nhit\n';
    await writeTree(ws, many);
    const text = expectOk(
      await searchTool({ pattern: 'hit', path: 'many' }, toolContext([ws], { searchMaxMatches: 5 }), {}),
    );
    const [body, notes] = text.split('\n\n');
    assert.equal(body?.split('\n').length, 5);
    assert.match(notes ?? '', /Stopped at 5 matches; there are more/);
    assert.equal(
      expectOk(await searchTool({ pattern: 'hit', path: 'many', max_results: 3 }, toolContext([ws]), {}))
        .split('\n\n')[0]
        ?.split('\n').length,
      3,
    );
  });

  it('shows a window around the match in a long line, never splitting a surrogate pair', async () => {
    const line = `${'😀'.repeat(200)}NEEDLE${'b'.repeat(500)}`;
    const shown = matchWindow(line, line.indexOf('NEEDLE'), 100);
    assert.ok(shown.includes('NEEDLE') && shown.length <= 102, shown);
    assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(shown));
  });

  it('does not read through symlinks that leave the workspace', async () => {
    const outside = await tempDir('cp-outside-');
    await writeTree(outside, { 'secret.txt': 'alpha secret' });
    await symlink(join(outside, 'secret.txt'), join(ws, 'src', 'leak.txt'));
    await symlink(outside, join(ws, 'src', 'leakdir'));
    const text = expectOk(await searchTool({ pattern: 'secret' }, toolContext([ws]), {}));
    assert.ok(!text.includes('alpha secret'), text);
  });

  it('honours an aborted signal', async () => {
    const abort = new AbortController();
    abort.abort();
    assert.match(
      expectError(await searchTool({ pattern: 'alpha' }, toolContext([ws], {}, abort.signal), {})),
      /stopped by the user/,
    );
  });
});
