import { strict as assert } from 'node:assert';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { readFileTool } from '../../src/host/tools/readFile';
import { cleanTempDirs, expectError, expectOk, tempDir, toolContext, writeTree } from './support/toolsWorkspace';

const numbered = (n: number, text: string) => `${String(n).padStart(6)}\t${text}`;

describe('tools: read_file', () => {
  let ws: string;
  beforeEach(async () => {
    ws = await tempDir();
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n');
    await writeTree(ws, {
      'small.txt': 'alpha\nbeta\ngamma\n',
      'crlf.txt': '\uFEFFone\r\ntwo\r\n',
      'fifty.txt': `${lines}\n`,
      'long.txt': `short\n${'x'.repeat(5000)}\nend`,
      'emoji.txt': `${'a'.repeat(9)}😀😀😀\n`,
      'empty.txt': '',
      'image.png': new Uint8Array([
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
      ]),
      'blob.bin': new Uint8Array(Array.from({ length: 600 }, (_, i) => (i * 37 + 11) % 256)),
      'dir/inner.txt': 'inner',
    });
  });
  afterEach(cleanTempDirs);

  it('returns numbered lines', async () => {
    const text = expectOk(await readFileTool({ path: 'small.txt' }, toolContext([ws])));
    assert.equal(text, [numbered(1, 'alpha'), numbered(2, 'beta'), numbered(3, 'gamma')].join('\n'));
  });

  it('strips CRLF and a BOM from what it shows', async () => {
    const text = expectOk(await readFileTool({ path: 'crlf.txt' }, toolContext([ws])));
    assert.equal(text, [numbered(1, 'one'), numbered(2, 'two')].join('\n'));
  });

  it('pages with offset and limit, and says where to continue', async () => {
    const text = expectOk(await readFileTool({ path: 'fifty.txt', offset: 10, limit: 5 }, toolContext([ws])));
    const [body, note] = text.split('\n\n');
    assert.deepEqual(
      body?.split('\n'),
      [10, 11, 12, 13, 14].map((n) => numbered(n, `line ${n}`)),
    );
    assert.match(note ?? '', /Showing lines 10–14 of 50\. Continue with offset=15\./);
  });

  it('uses the default line limit', async () => {
    const text = expectOk(await readFileTool({ path: 'fifty.txt' }, toolContext([ws], { readDefaultLines: 20 })));
    assert.equal(text.split('\n').filter((l) => /^\s+\d+\t/.test(l)).length, 20);
    assert.match(text, /Showing lines 1–20 of 50\. Continue with offset=21/);
  });

  it('marks the end of the file when paging reached it', async () => {
    const text = expectOk(await readFileTool({ path: 'fifty.txt', offset: 48 }, toolContext([ws])));
    assert.match(text, /Showing lines 48–50 of 50 \(end of file\)/);
  });

  it('refuses an offset past the end', async () => {
    assert.match(
      expectError(await readFileTool({ path: 'small.txt', offset: 10 }, toolContext([ws]))),
      /offset 10 is past the end of small\.txt, which has 3 lines/,
    );
  });

  it('cuts long lines and says so', async () => {
    const text = expectOk(await readFileTool({ path: 'long.txt' }, toolContext([ws])));
    const line2 = text.split('\n')[1] ?? '';
    assert.ok(line2.startsWith(numbered(2, 'x'.repeat(2000))));
    assert.match(line2, /… \[line cut: 3,000 more characters; read on with offset=2, column=2001\]$/);
    assert.match(text, /1 line longer than 2,000 characters was cut/);
  });

  it('cuts long lines without splitting a surrogate pair', async () => {
    const text = expectOk(await readFileTool({ path: 'emoji.txt' }, toolContext([ws], { readMaxLineChars: 10 })));
    assert.ok(text.includes(`${'a'.repeat(9)}… [line cut: 6 more characters; read on with offset=1, column=10]`), text);
  });

  it('reads on in a cut line from the column its note names, to the end of the line', async () => {
    const ctx = toolContext([ws]);
    const first = expectOk(await readFileTool({ path: 'long.txt', offset: 2, limit: 1 }, ctx));
    const column = Number(/column=(\d+)\]/.exec(first)?.[1]);
    assert.equal(column, 2001);
    const second = expectOk(await readFileTool({ path: 'long.txt', offset: 2, limit: 1, column }, ctx));
    assert.ok(second.startsWith(numbered(2, `[from column 2,001] ${'x'.repeat(2000)}`)), second.slice(0, 80));
    assert.match(second, /read on with offset=2, column=4001\]/);
    const third = expectOk(await readFileTool({ path: 'long.txt', offset: 2, limit: 1, column: 4001 }, ctx));
    assert.doesNotMatch(third.split('\n')[0] ?? '', /line cut/, 'the last 1,000 characters fit');
    assert.match(
      expectError(await readFileTool({ path: 'long.txt', offset: 2, column: 5001 }, ctx)),
      /column 5,001 is past the end of line 2 of long\.txt, which has 5,000 characters/,
    );
  });

  it('stops at the character cap and says where to continue', async () => {
    const text = expectOk(await readFileTool({ path: 'fifty.txt' }, toolContext([ws], { maxResultChars: 600 })));
    assert.ok(text.length <= 600, `length ${text.length}`);
    assert.match(
      text,
      /Showing lines 1–\d+ of 50\. The result reached its 600-character limit\. Continue with offset=\d+/,
    );
  });

  it('refuses binary files with their type and size', async () => {
    assert.match(
      expectError(await readFileTool({ path: 'image.png' }, toolContext([ws]))),
      /image\.png is a binary file \(PNG image, 16 B\)/,
    );
    assert.match(
      expectError(await readFileTool({ path: 'blob.bin' }, toolContext([ws]))),
      /blob\.bin is a binary file \(binary data, 600 B\)/,
    );
  });

  it('explains a missing file, a folder, an empty file', async () => {
    assert.match(
      expectError(await readFileTool({ path: 'nope.txt' }, toolContext([ws]))),
      /nope\.txt does not exist\. Use list_files or search/,
    );
    assert.match(
      expectError(await readFileTool({ path: 'dir' }, toolContext([ws]))),
      /dir is a folder, not a file\. Use list_files/,
    );
    assert.match(expectOk(await readFileTool({ path: 'empty.txt' }, toolContext([ws]))), /empty\.txt is empty/);
  });

  it('refuses files outside the workspace, also through a symlink', async () => {
    const outside = await tempDir('cp-outside-');
    await writeTree(outside, { 'secret.txt': 'top secret' });
    await symlink(join(outside, 'secret.txt'), join(ws, 'innocent.txt'));
    const text = expectError(await readFileTool({ path: 'innocent.txt' }, toolContext([ws])));
    assert.match(text, /symbolic link/);
    assert.ok(!text.includes('top secret'));
    assert.match(
      expectError(await readFileTool({ path: join(outside, 'secret.txt') }, toolContext([ws]))),
      /outside the workspace/,
    );
  });

  it('honours an aborted signal', async () => {
    const abort = new AbortController();
    abort.abort();
    assert.match(
      expectError(await readFileTool({ path: 'fifty.txt' }, toolContext([ws], {}, abort.signal))),
      /stopped by the user/,
    );
  });
});
