/**
 * One path rule for every tool (issue 10, #5): with the session's files folder present, a
 * single-folder workspace stays single-folder, so one relative path names one file for
 * read_file, list_files, search, edit_file and run_command's cwd alike; the files folder is
 * reached by its absolute path only, and read-only.
 */
import { strict as assert } from 'node:assert';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ToolOutcome } from '../../src/core/tools/toolRunner';
import { WorkspaceToolRunner } from '../../src/host/tools/workspaceToolRunner';
import { cleanTempDirs, ScriptedApprover, tempDir, writeTree } from './support/toolsWorkspace';

const text = (o: ToolOutcome): string => (typeof o.content === 'string' ? o.content : '');
const live = (): AbortSignal => new AbortController().signal;

/** A runner as the extension builds it: workspace folders plus the session's files folder. */
function runnerOver(roots: readonly string[], filesDir: string, approver: ScriptedApprover): WorkspaceToolRunner {
  return new WorkspaceToolRunner({
    roots,
    readOnlyRoots: () => [filesDir],
    approver,
    runCommandEnabled: () => true,
    filesExclude: () => ({}),
  });
}

describe('tools: one path rule for every tool', () => {
  let ws: string;
  let filesDir: string;
  let approver: ScriptedApprover;
  let run: (name: string, input: Record<string, unknown>) => Promise<ToolOutcome>;

  beforeEach(async () => {
    // A workspace folder named `src` that has a `src` folder of its own.
    ws = join(await tempDir('cp-rule-'), 'src');
    await writeTree(ws, {
      'index.ts': 'export const where = "ROOT";\n',
      'src/index.ts': 'export const where = "NESTED";\n',
    });
    filesDir = join(await tempDir('cp-session-'), 'abc123.files');
    await writeTree(filesDir, { 'tool-1.txt': 'spilled output NESTED-LOOKALIKE\n' });
    approver = new ScriptedApprover();
    const runner = runnerOver([ws], filesDir, approver);
    run = (name, input) => runner.run({ id: 't', name, input }, live());
  });
  afterEach(cleanTempDirs);

  it('read_file "src/index.ts" reads <ws>/src/index.ts, the file edit_file edits', async () => {
    const read = await run('read_file', { path: 'src/index.ts' });
    assert.equal(read.isError, false, text(read));
    assert.match(text(read), /"NESTED"/);
    const edit = await run('edit_file', { path: 'src/index.ts', old_string: 'NESTED', new_string: 'EDITED' });
    assert.equal(edit.isError, false, text(edit));
    assert.equal(approver.edits[0]?.path, join(ws, 'src', 'index.ts'));
    assert.equal(approver.edits[0]?.displayPath, 'src/index.ts');
    assert.match(await readFile(join(ws, 'src', 'index.ts'), 'utf8'), /EDITED/);
    assert.match(await readFile(join(ws, 'index.ts'), 'utf8'), /ROOT/);
    assert.match(text(await run('read_file', { path: 'src/index.ts' })), /"EDITED"/);
  });

  it('list_files and search with path "src" look in <ws>/src, and show paths without a folder prefix', async () => {
    const listed = await run('list_files', { path: 'src' });
    assert.equal(text(listed), 'src/index.ts');
    const found = await run('search', { pattern: 'where', path: 'src' });
    assert.match(text(found), /^src\/index\.ts:1: export const where = "NESTED";/);
    assert.doesNotMatch(text(found), /ROOT/);
    // The whole workspace: both files, and nothing from the session's files folder.
    const all = await run('search', { pattern: 'where|NESTED' });
    assert.match(text(all), /^index\.ts:1:/m);
    assert.match(text(all), /^src\/index\.ts:1:/m);
    assert.doesNotMatch(text(all), /spilled/);
    assert.doesNotMatch(text(await run('list_files', {})), /abc123|tool-1/);
  });

  it('run_command with cwd "src" runs in <ws>/src', async () => {
    const declined = new ScriptedApprover({ approved: false });
    const runner = runnerOver([ws], filesDir, declined);
    await runner.run({ id: 't', name: 'run_command', input: { command: 'pwd', cwd: 'src' } }, live());
    await runner.run({ id: 't', name: 'run_command', input: { command: 'pwd' } }, live());
    assert.deepEqual(
      declined.commands.map((c) => [c.cwd, c.displayCwd]),
      [
        [join(ws, 'src'), 'src'],
        [ws, '.'],
      ],
    );
  });

  it('the session files folder: read by its absolute path, never by a relative one, never written', async () => {
    const spill = join(filesDir, 'tool-1.txt');
    const read = await run('read_file', { path: spill });
    assert.equal(read.isError, false, text(read));
    assert.match(text(read), /spilled output/);
    // Its name as a first segment is just a path in the workspace, not the folder.
    const relative = await run('read_file', { path: `${basename(filesDir)}/tool-1.txt` });
    assert.equal(relative.isError, true);
    assert.match(text(relative), /abc123\.files\/tool-1\.txt does not exist/);
    // Listing and searching it by absolute path work, showing absolute paths.
    assert.equal(text(await run('list_files', { path: filesDir })), spill);
    assert.match(
      text(await run('search', { pattern: 'spilled', path: filesDir })),
      new RegExp(`^${spill.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1: spilled`),
    );
    // Writing there, or running a command there, is refused before anyone is asked.
    const edit = await run('edit_file', { path: spill, old_string: 'spilled', new_string: 'changed' });
    assert.equal(edit.isError, true);
    assert.match(text(edit), /session's files folder.*read-only/);
    const cmd = await run('run_command', { command: 'pwd', cwd: filesDir });
    assert.match(text(cmd), /read-only/);
    assert.equal(approver.edits.length + approver.commands.length, 0);
    assert.match(await readFile(spill, 'utf8'), /spilled output/);
  });

  it('multi-root: a first segment naming a workspace folder selects it, for every tool', async () => {
    const other = join(await tempDir('cp-rule2-'), 'lib');
    await writeTree(other, { 'index.ts': 'export const where = "LIB";\n' });
    const runner = runnerOver([ws, other], filesDir, approver);
    const go = (name: string, input: Record<string, unknown>) => runner.run({ id: 't', name, input }, live());
    assert.match(text(await go('read_file', { path: 'lib/index.ts' })), /"LIB"/);
    // `src/…` names the folder `src` (the workspace folder), so `src/src/index.ts` is the nested file.
    assert.match(text(await go('read_file', { path: 'src/index.ts' })), /"ROOT"/);
    assert.match(text(await go('read_file', { path: 'src/src/index.ts' })), /"NESTED"/);
    assert.equal(text(await go('list_files', { path: 'lib' })), 'lib/index.ts');
    assert.match(
      text(await go('search', { pattern: 'where', path: 'lib' })),
      /^lib\/index\.ts:1: export const where = "LIB";/,
    );
    assert.equal(text(await go('list_files', {})), 'src/\nlib/');
    const edit = await go('edit_file', { path: 'lib/index.ts', old_string: 'LIB', new_string: 'LIB2' });
    assert.equal(edit.isError, false, text(edit));
    assert.equal(approver.edits[0]?.path, join(other, 'index.ts'));
    assert.equal(approver.edits[0]?.displayPath, 'lib/index.ts');
    const declined = new ScriptedApprover({ approved: false });
    await runnerOver([ws, other], filesDir, declined).run(
      { id: 't', name: 'run_command', input: { command: 'pwd', cwd: 'lib' } },
      live(),
    );
    assert.equal(declined.commands[0]?.cwd, other);
    // The session's files folder still does not count as a folder of its own.
    assert.match(text(await go('read_file', { path: `${basename(filesDir)}/tool-1.txt` })), /does not exist/);
  });

  it('a relative path that leads into the session files folder through a link is refused', async () => {
    await mkdir(join(ws, 'links'));
    await symlink(filesDir, join(ws, 'links', 'files'));
    const read = await run('read_file', { path: 'links/files/tool-1.txt' });
    assert.equal(read.isError, true);
    assert.match(text(read), /outside the workspace through a symbolic link/);
  });
});
