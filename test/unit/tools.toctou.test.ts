/**
 * Time-of-check/time-of-use (issue 10, #10): a folder swapped for a symbolic link, or a file
 * swapped for a link, after the path was checked — while an edit waits for approval, or
 * just before a read — must not make a write land, or a read return, outside the workspace.
 */
import { strict as assert } from 'node:assert';
import { readdir, readFile, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Approver } from '../../src/host/approvals/approval';
import { editFileTool } from '../../src/host/tools/editFile';
import { writeConfined } from '../../src/host/tools/confinedFs';
import { readFileTool } from '../../src/host/tools/readFile';
import { resolveToolPath } from '../../src/host/tools/paths';
import { cleanTempDirs, expectError, expectOk, tempDir, toolContext, writeTree } from './support/toolsWorkspace';

/** Approves every edit, after running `during` (what happens while the user looks at the diff). */
function approveAfter(during: () => Promise<void>): Approver {
  return {
    approveEdit: async () => {
      await during();
      return { approved: true };
    },
    approveCommand: async () => ({ approved: false }),
  };
}

describe('tools: paths are checked again at the moment of the operation', () => {
  let ws: string;
  let outside: string;

  beforeEach(async () => {
    ws = await tempDir('cp-toctou-ws-');
    outside = await tempDir('cp-toctou-out-');
    // The same content inside and outside, so a swapped folder passes the "changed on disk" check.
    await writeTree(ws, { 'sub/a.txt': 'same\n', 'dir/secret.txt': 'inside\n', 'plain.txt': 'inside\n' });
    await writeTree(outside, { 'dir/a.txt': 'same\n', 'dir/secret.txt': 'OUTSIDE SECRET\n' });
  });
  afterEach(cleanTempDirs);

  /** Replaces `<ws>/<name>` by a symbolic link to `<outside>/dir`, keeping the original aside. */
  const swapForLink = async (name: string): Promise<void> => {
    await rename(join(ws, name), join(ws, `${name}-old`));
    await symlink(join(outside, 'dir'), join(ws, name));
  };

  it('edit_file: a folder swapped for a link while the edit waits for approval gets no write', async () => {
    const text = expectError(
      await editFileTool(
        { path: 'sub/a.txt', old_string: 'same', new_string: 'changed' },
        toolContext([ws]),
        approveAfter(() => swapForLink('sub')),
      ),
    );
    assert.match(text, /outside the workspace through a symbolic link/);
    assert.match(text, /The edit was not applied/);
    assert.equal(await readFile(join(outside, 'dir', 'a.txt'), 'utf8'), 'same\n');
    assert.equal(await readFile(join(ws, 'sub-old', 'a.txt'), 'utf8'), 'same\n');
  });

  it('edit_file: a new file in a folder swapped for a link while waiting is not created outside', async () => {
    expectError(
      await editFileTool(
        { path: 'sub/new.txt', old_string: '', new_string: 'planted\n' },
        toolContext([ws]),
        approveAfter(() => swapForLink('sub')),
      ),
    );
    assert.deepEqual((await readdir(join(outside, 'dir'))).sort(), ['a.txt', 'secret.txt']);
  });

  it('the write itself re-checks its folder: swapped after the last resolution, nothing is written outside', async () => {
    const resolved = await resolveToolPath({ roots: [ws] }, 'sub/a.txt', 'write');
    assert.ok(resolved.ok);
    await swapForLink('sub');
    const written = await writeConfined(resolved.path, resolved.root, 'changed\n', 'sub/a.txt');
    assert.equal(written.ok, false);
    assert.match(written.ok ? '' : written.error, /now leads to .*outside the workspace/);
    assert.equal(await readFile(join(outside, 'dir', 'a.txt'), 'utf8'), 'same\n');
    assert.deepEqual(
      (await readdir(join(outside, 'dir'))).sort(),
      ['a.txt', 'secret.txt'],
      'no temporary file left outside',
    );
  });

  it('the write creates missing folders one at a time and refuses when one of them is a link out', async () => {
    const resolved = await resolveToolPath({ roots: [ws] }, 'new/deeper/file.txt', 'write');
    assert.ok(resolved.ok);
    await symlink(join(outside, 'dir'), join(ws, 'new'));
    const written = await writeConfined(resolved.path, resolved.root, 'x', 'new/deeper/file.txt');
    assert.equal(written.ok, false);
    assert.deepEqual((await readdir(join(outside, 'dir'))).sort(), ['a.txt', 'secret.txt']);
  });

  it('the write succeeds and keeps the folder clean when nothing changed', async () => {
    const resolved = await resolveToolPath({ roots: [ws] }, 'fresh/deeper/file.txt', 'write');
    assert.ok(resolved.ok);
    assert.deepEqual(await writeConfined(resolved.path, resolved.root, 'hello\n', 'fresh/deeper/file.txt'), {
      ok: true,
    });
    assert.equal(await readFile(join(ws, 'fresh', 'deeper', 'file.txt'), 'utf8'), 'hello\n');
    assert.deepEqual(await readdir(join(ws, 'fresh', 'deeper')), ['file.txt']);
  });

  it('read_file: a folder swapped for a link after the check is refused, not read', async () => {
    const ctx = { ...toolContext([ws]), beforeOpen: () => swapForLink('dir') };
    const text = expectError(await readFileTool({ path: 'dir/secret.txt' }, ctx));
    assert.match(text, /now leads outside the workspace/);
    assert.doesNotMatch(text, /OUTSIDE SECRET/);
  });

  it('read_file: a file flipped to a link after the check is refused, not followed', async () => {
    const flip = async (): Promise<void> => {
      await rm(join(ws, 'plain.txt'));
      await symlink(join(outside, 'dir', 'secret.txt'), join(ws, 'plain.txt'));
    };
    const text = expectError(await readFileTool({ path: 'plain.txt' }, { ...toolContext([ws]), beforeOpen: flip }));
    assert.match(text, /replaced by a symbolic link/);
    assert.doesNotMatch(text, /OUTSIDE SECRET/);
  });

  it('read_file: nothing changed, the file is read as before', async () => {
    const text = expectOk(
      await readFileTool({ path: 'dir/secret.txt' }, { ...toolContext([ws]), beforeOpen: async () => undefined }),
    );
    assert.match(text, /inside/);
  });
});
