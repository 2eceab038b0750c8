import { strict as assert } from 'node:assert';
import { chmod, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { computeEdit, detectEol } from '../../src/core/tools/applyEdit';
import type { Approver } from '../../src/host/approvals/approval';
import { editFileTool } from '../../src/host/tools/editFile';
import {
  cleanTempDirs,
  expectError,
  expectOk,
  ScriptedApprover,
  tempDir,
  toolContext,
  writeTree,
} from './support/toolsWorkspace';

describe('tools: edit_file', () => {
  let ws: string;
  const read = (rel: string) => readFile(join(ws, rel), 'utf8');
  beforeEach(async () => {
    ws = await tempDir();
    await writeTree(ws, {
      'a.ts': 'const a = 1;\nconst b = 2;\nconst a2 = 1;\n',
      'dup.ts': 'x();\ny();\nx();\n',
      'crlf.txt': 'one\r\ntwo\r\nthree\r\n',
      'money.txt': 'price: 5\n',
      'img.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
      'latin1.txt': Buffer.from('The caf\u00e9 is open on Sunday mornings, as usual.\n', 'latin1'),
      'empty.txt': '',
    });
  });
  afterEach(cleanTempDirs);

  it('replaces an exact, unique match after approval and shows the result', async () => {
    const approver = new ScriptedApprover();
    const text = expectOk(
      await editFileTool(
        { path: 'a.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' },
        toolContext([ws]),
        approver,
      ),
    );
    assert.equal(await read('a.ts'), 'const a = 1;\nconst b = 3;\nconst a2 = 1;\n');
    assert.match(
      text,
      /^Edited a\.ts: replaced 1 occurrence \(first at line 2\)\. The result around it:\n {5}1\tconst a = 1;\n {5}2\tconst b = 3;/,
    );
    assert.equal(approver.edits.length, 1);
    assert.deepEqual(
      { ...approver.edits[0], path: undefined },
      {
        path: undefined,
        displayPath: 'a.ts',
        before: 'const a = 1;\nconst b = 2;\nconst a2 = 1;\n',
        after: 'const a = 1;\nconst b = 3;\nconst a2 = 1;\n',
        isNewFile: false,
      },
    );
  });

  it('refuses an ambiguous match with the count and lines, unless replace_all', async () => {
    const approver = new ScriptedApprover();
    assert.match(
      expectError(
        await editFileTool({ path: 'dup.ts', old_string: 'x();', new_string: 'z();' }, toolContext([ws]), approver),
      ),
      /occurs 2 times in dup\.ts \(at lines 1, 3\).*replace_all: true/,
    );
    assert.equal(approver.edits.length, 0, 'nothing was proposed');
    expectOk(
      await editFileTool(
        { path: 'dup.ts', old_string: 'x();', new_string: 'z();', replace_all: true },
        toolContext([ws]),
        approver,
      ),
    );
    assert.equal(await read('dup.ts'), 'z();\ny();\nz();\n');
  });

  it('explains a miss, pointing at a similar line', async () => {
    const text = expectError(
      await editFileTool(
        { path: 'a.ts', old_string: 'const  b = 2 ;\nconst c', new_string: 'q' },
        toolContext([ws]),
        new ScriptedApprover(),
      ),
    );
    assert.match(text, /old_string was not found in a\.ts\./);
    const loose = expectError(
      await editFileTool(
        { path: 'a.ts', old_string: '  const b = 2;\n  const zz', new_string: 'q' },
        toolContext([ws]),
        new ScriptedApprover(),
      ),
    );
    assert.match(loose, /Line 2 looks like the start of it: "const b = 2;"/);
    assert.match(
      expectError(
        await editFileTool(
          { path: 'a.ts', old_string: 'nowhere', new_string: 'q' },
          toolContext([ws]),
          new ScriptedApprover(),
        ),
      ),
      /Read the file again/,
    );
  });

  it('does not treat $ patterns in new_string specially', async () => {
    expectOk(
      await editFileTool(
        { path: 'money.txt', old_string: '5', new_string: "$& $1 $$ $'" },
        toolContext([ws]),
        new ScriptedApprover(),
      ),
    );
    assert.equal(await read('money.txt'), "price: $& $1 $$ $'\n");
  });

  it('creates a new file (and its folders) when old_string is empty', async () => {
    const approver = new ScriptedApprover();
    const text = expectOk(
      await editFileTool(
        { path: 'new/dir/n.ts', old_string: '', new_string: 'export {};\n' },
        toolContext([ws]),
        approver,
      ),
    );
    assert.equal(await read('new/dir/n.ts'), 'export {};\n');
    assert.match(text, /^Created new\/dir\/n\.ts \(1 line, 11 B\)\.$/);
    assert.equal(approver.edits[0]?.isNewFile, true);
    assert.equal(approver.edits[0]?.before, '');
    assert.match(
      expectError(await editFileTool({ path: 'a.ts', old_string: '', new_string: 'x' }, toolContext([ws]), approver)),
      /already exists and is not empty/,
    );
    expectOk(
      await editFileTool({ path: 'empty.txt', old_string: '', new_string: 'filled' }, toolContext([ws]), approver),
    );
    assert.equal(await read('empty.txt'), 'filled');
    assert.match(
      expectError(
        await editFileTool({ path: 'missing.ts', old_string: 'x', new_string: 'y' }, toolContext([ws]), approver),
      ),
      /does not exist\. To create it, call edit_file with old_string ""/,
    );
  });

  it('leaves the file unchanged when the user declines, passing their reason on', async () => {
    const approver = new ScriptedApprover({ approved: false, reason: 'use a constant instead' });
    const text = expectError(
      await editFileTool(
        { path: 'a.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' },
        toolContext([ws]),
        approver,
      ),
    );
    assert.match(
      text,
      /The user declined this edit to a\.ts\. Their reason: use a constant instead\.\nThe file is unchanged\. Do not retry the same edit/,
    );
    assert.equal(await read('a.ts'), 'const a = 1;\nconst b = 2;\nconst a2 = 1;\n');
    const noReason = expectError(
      await editFileTool(
        { path: 'fresh.ts', old_string: '', new_string: 'x' },
        toolContext([ws]),
        new ScriptedApprover({ approved: false }),
      ),
    );
    assert.match(noReason, /They gave no reason/);
    await assert.rejects(stat(join(ws, 'fresh.ts')));
  });

  it('keeps CRLF line endings when the model sends LF', async () => {
    expectOk(
      await editFileTool(
        { path: 'crlf.txt', old_string: 'one\ntwo', new_string: 'uno\ndos\ndos-bis' },
        toolContext([ws]),
        new ScriptedApprover(),
      ),
    );
    assert.equal(await read('crlf.txt'), 'uno\r\ndos\r\ndos-bis\r\nthree\r\n');
    assert.equal(detectEol('a\r\nb\r\nc\n'), '\r\n');
    assert.equal(detectEol('a\nb\r\nc\n'), '\n');
  });

  it('writes atomically, keeping the permission bits and leaving no temp file', async () => {
    await chmod(join(ws, 'a.ts'), 0o640);
    expectOk(
      await editFileTool(
        { path: 'a.ts', old_string: 'const b = 2;', new_string: 'const b = 4;' },
        toolContext([ws]),
        new ScriptedApprover(),
      ),
    );
    assert.equal((await stat(join(ws, 'a.ts'))).mode & 0o777, 0o640);
    assert.deepEqual(
      (await readdir(ws)).filter((n) => n.endsWith('.tmp')),
      [],
    );
  });

  it('does not write when the file changed while waiting for approval', async () => {
    const approver = new ScriptedApprover();
    const userEditsMeanwhile: Approver = {
      approveEdit: async (p, signal) => {
        await writeFile(join(ws, 'a.ts'), 'changed meanwhile\n');
        return approver.approveEdit(p, signal);
      },
      approveCommand: (p, signal) => approver.approveCommand(p, signal),
    };
    assert.match(
      expectError(
        await editFileTool(
          { path: 'a.ts', old_string: 'const b = 2;', new_string: 'x' },
          toolContext([ws]),
          userEditsMeanwhile,
        ),
      ),
      /changed on disk while the edit waited/,
    );
    assert.equal(await read('a.ts'), 'changed meanwhile\n');
  });

  it('refuses binary, non-UTF-8, identical and outside paths', async () => {
    const approver = new ScriptedApprover();
    assert.match(
      expectError(
        await editFileTool({ path: 'img.png', old_string: 'a', new_string: 'b' }, toolContext([ws]), approver),
      ),
      /binary file \(PNG image\)/,
    );
    assert.match(
      expectError(
        await editFileTool({ path: 'latin1.txt', old_string: 'caf', new_string: 'b' }, toolContext([ws]), approver),
      ),
      /not valid UTF-8/,
    );
    assert.match(
      expectError(await editFileTool({ path: 'a.ts', old_string: 'a', new_string: 'a' }, toolContext([ws]), approver)),
      /identical/,
    );
    const outside = await tempDir('cp-outside-');
    await symlink(outside, join(ws, 'out'));
    assert.match(
      expectError(
        await editFileTool({ path: 'out/new.ts', old_string: '', new_string: 'x' }, toolContext([ws]), approver),
      ),
      /symbolic link/,
    );
    assert.deepEqual(await readdir(outside), []);
    assert.equal(approver.edits.length, 0);
  });

  it('does not write when Stop was pressed during approval', async () => {
    const abort = new AbortController();
    const approver = new ScriptedApprover({ approved: true }, () => abort.abort());
    assert.match(
      expectError(
        await editFileTool(
          { path: 'a.ts', old_string: 'const b = 2;', new_string: 'x' },
          toolContext([ws], {}, abort.signal),
          approver,
        ),
      ),
      /stopped by the user.*a\.ts is unchanged/,
    );
    assert.equal(await read('a.ts'), 'const a = 1;\nconst b = 2;\nconst a2 = 1;\n');
  });

  it('computeEdit tries the strings as given when the EOL-converted form does not match', () => {
    // Mostly CRLF, but the lines to replace are joined by a bare LF.
    const r = computeEdit('a\r\nb\r\nc\nd\r\n', { oldString: 'c\nd', newString: 'C\nD', replaceAll: false }, 'f');
    assert.ok(r.ok);
    assert.equal(r.ok && r.after, 'a\r\nb\r\nC\r\nD\r\n');
  });
});
