import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { folderSpillReader } from '../../src/host/chat/spillReader';

describe('recall: the session folder as saved outputs', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await fsp.mkdtemp(join(tmpdir(), 'cp-spills-'));
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('reads the text files directly inside the folder, sorted, and skips binary, oversized, linked and nested ones', async () => {
    await fsp.writeFile(join(dir, 'tool-toolu_2.txt'), 'second\noutput');
    await fsp.writeFile(join(dir, 'paste-1.txt'), 'first paste');
    await fsp.writeFile(join(dir, 'image.bin'), Buffer.from([1, 0, 2]));
    await fsp.writeFile(join(dir, 'huge.txt'), 'x'.repeat(2000));
    await fsp.mkdir(join(dir, 'sub'));
    await fsp.writeFile(join(dir, 'sub', 'nested.txt'), 'nested');
    await fsp.symlink(join(dir, 'paste-1.txt'), join(dir, 'link.txt'));
    const spills = await folderSpillReader(dir, { maxFileBytes: 1000, maxTotalBytes: 10_000, maxFiles: 10 }).read();
    assert.deepEqual(spills, [
      { path: join(dir, 'paste-1.txt'), text: 'first paste' },
      { path: join(dir, 'tool-toolu_2.txt'), text: 'second\noutput' },
    ]);
    assert.equal(
      (await folderSpillReader(dir, { maxFileBytes: 1000, maxTotalBytes: 10_000, maxFiles: 1 }).read()).length,
      1,
    );
  });

  it('gives an empty list for a folder that does not exist (nothing spilled yet)', async () => {
    assert.deepEqual(await folderSpillReader(join(dir, 'missing.files')).read(), []);
  });
});
