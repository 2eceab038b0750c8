import { strict as assert } from 'node:assert';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { resolveToolPath, type PathResolution } from '../../src/host/tools/paths';
import { cleanTempDirs, tempDir, writeTree } from './support/toolsWorkspace';

/** The workspace-only resolution the tests below use (reading access, no session folder). */
const resolveInWorkspace = (roots: readonly string[], requested: string): Promise<PathResolution> =>
  resolveToolPath({ roots }, requested, 'read');

function ok(r: PathResolution): Extract<PathResolution, { ok: true }> {
  if (!r.ok) throw new Error(`expected ok, got: ${r.error}`);
  return r;
}
function refused(r: PathResolution): string {
  if (r.ok) throw new Error(`expected a refusal, got ${r.path}`);
  return r.error;
}

describe('tools: path confinement (resolveInWorkspace)', () => {
  let ws: string;
  let outside: string;

  beforeEach(async () => {
    ws = await tempDir('cp-ws-');
    outside = await tempDir('cp-outside-');
    await writeTree(ws, { 'src/a.ts': 'a', 'README.md': 'r' });
    await writeTree(outside, { 'secret.txt': 's', 'dir/inner.txt': 'i' });
  });
  afterEach(cleanTempDirs);

  it('resolves relative and absolute paths inside the workspace', async () => {
    const rel = ok(await resolveInWorkspace([ws], 'src/a.ts'));
    assert.equal(rel.path, join(ws, 'src', 'a.ts'));
    assert.equal(rel.display, 'src/a.ts');
    assert.equal(rel.exists, true);
    assert.equal(ok(await resolveInWorkspace([ws], join(ws, 'README.md'))).display, 'README.md');
    assert.equal(ok(await resolveInWorkspace([ws], './src/../README.md')).display, 'README.md');
    assert.equal(ok(await resolveInWorkspace([ws], '.')).display, '.');
  });

  it('refuses ../ escapes and absolute paths outside, saying why', async () => {
    assert.match(refused(await resolveInWorkspace([ws], '../x')), /outside the workspace/);
    assert.match(refused(await resolveInWorkspace([ws], 'src/../../secret.txt')), /outside the workspace/);
    assert.match(
      refused(await resolveInWorkspace([ws], join(outside, 'secret.txt'))),
      /outside the workspace.*relative to the workspace root/,
    );
    assert.match(refused(await resolveInWorkspace([ws], '/etc/passwd')), /outside the workspace/);
  });

  it('refuses a symlinked file that points outside', async () => {
    await symlink(join(outside, 'secret.txt'), join(ws, 'link.txt'));
    assert.match(refused(await resolveInWorkspace([ws], 'link.txt')), /through a symbolic link.*secret\.txt/);
  });

  it('refuses a symlinked folder that points outside, for existing and not-yet-existing files below it', async () => {
    await symlink(join(outside, 'dir'), join(ws, 'linkdir'));
    assert.match(refused(await resolveInWorkspace([ws], 'linkdir/inner.txt')), /symbolic link/);
    assert.match(refused(await resolveInWorkspace([ws], 'linkdir')), /symbolic link/);
    assert.match(refused(await resolveInWorkspace([ws], 'linkdir/new/deeper/file.ts')), /symbolic link/);
  });

  it('allows a symlink that stays inside the workspace, and returns the real path', async () => {
    await symlink(join(ws, 'src'), join(ws, 'srclink'));
    await symlink(join(ws, 'src', 'a.ts'), join(ws, 'a-link.ts'));
    const viaDir = ok(await resolveInWorkspace([ws], 'srclink/a.ts'));
    assert.equal(viaDir.path, join(ws, 'src', 'a.ts'));
    assert.equal(viaDir.display, 'src/a.ts');
    assert.equal(ok(await resolveInWorkspace([ws], 'a-link.ts')).path, join(ws, 'src', 'a.ts'));
  });

  it('confines a path that does not exist yet to its deepest existing ancestor', async () => {
    const r = ok(await resolveInWorkspace([ws], 'src/new/dir/file.ts'));
    assert.equal(r.exists, false);
    assert.equal(r.path, join(ws, 'src', 'new', 'dir', 'file.ts'));
  });

  it('refuses a dangling symlink instead of writing through it', async () => {
    await symlink(join(outside, 'not-there.txt'), join(ws, 'dangling.txt'));
    assert.match(refused(await resolveInWorkspace([ws], 'dangling.txt')), /symbolic link to .*does not exist/);
  });

  it('works when the workspace root itself is reached through a symlink', async () => {
    const parent = await tempDir('cp-parent-');
    await symlink(ws, join(parent, 'ws-link'));
    const r = ok(await resolveInWorkspace([join(parent, 'ws-link')], 'src/a.ts'));
    assert.equal(r.path, join(ws, 'src', 'a.ts'));
    assert.equal(r.display, 'src/a.ts');
  });

  it('refuses a path through a file, and NUL characters', async () => {
    assert.match(refused(await resolveInWorkspace([ws], 'README.md/x')), /is a file, not a folder/);
    assert.match(refused(await resolveInWorkspace([ws], 'a\0b')), /NUL/);
  });

  it('multi-root: relative paths use the first folder, or the folder the first segment names', async () => {
    const other = await tempDir('cp-other-');
    await mkdir(join(other, 'lib'));
    await writeTree(other, { 'lib/b.ts': 'b' });
    const otherName = other.split('/').pop() as string;
    const first = ok(await resolveInWorkspace([ws, other], 'src/a.ts'));
    assert.equal(first.path, join(ws, 'src', 'a.ts'));
    assert.equal(first.display, `${ws.split('/').pop()}/src/a.ts`);
    const second = ok(await resolveInWorkspace([ws, other], `${otherName}/lib/b.ts`));
    assert.equal(second.path, join(other, 'lib', 'b.ts'));
    assert.equal(ok(await resolveInWorkspace([ws, other], join(other, 'lib'))).root.path, other);
    // A link from one folder into another stays inside the workspace.
    await symlink(join(other, 'lib'), join(ws, 'lib-link'));
    assert.equal(ok(await resolveInWorkspace([ws, other], 'lib-link/b.ts')).path, join(other, 'lib', 'b.ts'));
    assert.match(refused(await resolveInWorkspace([ws, other], '../x')), /outside/);
  });

  it('says so when no folder is open', async () => {
    assert.match(refused(await resolveInWorkspace([], 'a')), /No workspace folder/);
    assert.match(refused(await resolveInWorkspace([join(ws, 'missing')], 'a')), /No workspace folder/);
  });
});
