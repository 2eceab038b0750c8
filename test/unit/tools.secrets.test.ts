import { strict as assert } from 'node:assert';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { editFileTool } from '../../src/host/tools/editFile';
import { readFileTool } from '../../src/host/tools/readFile';
import { searchTool } from '../../src/host/tools/search';
import {
  cleanTempDirs,
  expectError,
  expectOk,
  ScriptedApprover,
  tempDir,
  toolContext,
  writeTree,
} from './support/toolsWorkspace';

const SECRET = 'sk-ant-api03-THIS-MUST-NEVER-REACH-THE-MODEL';

describe('tools: secret-looking files are never read', () => {
  let ws: string;
  beforeEach(async () => {
    ws = await tempDir();
    await writeTree(ws, {
      '.env': `ANTHROPIC_API_KEY=${SECRET}\n`,
      '.env.local': `TOKEN=${SECRET}\n`,
      '.git/config': `[remote "origin"]\n\turl = https://user:${SECRET}@github.com/x/y.git\n`,
      '.npmrc': `//registry.npmjs.org/:_authToken=${SECRET}\n`,
      'keys/id_ed25519': `-----BEGIN OPENSSH PRIVATE KEY-----\n${SECRET}\n`,
      'src/a.ts': `export const keyName = 'ANTHROPIC_API_KEY';\n`,
    });
  });
  afterEach(cleanTempDirs);

  it('read_file refuses .env*, .git/config, registry tokens and keys, says why, and returns none of the content', async () => {
    for (const path of [
      '.env',
      '.env.local',
      '.git/config',
      '.npmrc',
      'keys/id_ed25519',
      './.env',
      'src/../.git/config',
    ]) {
      const text = expectError(await readFileTool({ path }, toolContext([ws])));
      assert.match(
        text,
        /^read_file: .+ was not read because it looks like a secrets file \(.+\)\. Its content is never sent to the model/,
        path,
      );
      assert.ok(!text.includes(SECRET), `${path}: the content leaked`);
    }
  });

  it('read_file refuses an innocent name that is a symbolic link to a secrets file', async () => {
    await symlink(join(ws, '.env'), join(ws, 'notes.txt'));
    const text = expectError(await readFileTool({ path: 'notes.txt' }, toolContext([ws])));
    assert.match(
      text,
      /notes\.txt \(which leads to \.env\) was not read because it looks like a secrets file \(\.env files hold keys and passwords\)/,
    );
    assert.ok(!text.includes(SECRET));
  });

  it('read_file still reads ordinary files', async () => {
    assert.match(expectOk(await readFileTool({ path: 'src/a.ts' }, toolContext([ws]))), /keyName/);
  });

  it('search skips secret-looking files, walked or named, and says so', async () => {
    const all = expectOk(await searchTool({ pattern: 'sk-ant|ANTHROPIC' }, toolContext([ws]), {}));
    assert.ok(!all.includes(SECRET), all);
    assert.match(all, /^src\/a\.ts:1:/);
    assert.match(
      all,
      /\[Skipped \d+ secret-looking files? \(\.env, \.git\/config, keys …\): their content is never sent to the model\.\]/,
    );
    const named = expectOk(await searchTool({ pattern: '.', path: '.env' }, toolContext([ws]), {}));
    assert.ok(!named.includes(SECRET), named);
    assert.match(named, /No matches .*\n\[Skipped 1 secret-looking file/);
  });

  it('edit_file on a secrets file never quotes its lines back (no near-miss line, no snippet)', async () => {
    const approver = new ScriptedApprover();
    const miss = expectError(
      await editFileTool(
        { path: '.env', old_string: 'ANTHROPIC_API_KEY = x', new_string: 'y' },
        toolContext([ws]),
        approver,
      ),
    );
    assert.ok(!miss.includes(SECRET), miss);
    assert.match(miss, /not quoted because it looks like a secrets file/);
    const done = expectOk(
      await editFileTool(
        { path: '.env', old_string: 'ANTHROPIC_API_KEY=', new_string: 'OLD_KEY=' },
        toolContext([ws]),
        approver,
      ),
    );
    assert.ok(!done.includes(SECRET), done);
    assert.match(
      done,
      /^Edited \.env: replaced 1 occurrence \(first at line 1\)\. \(Not quoted: it looks like a secrets file\.\)$/,
    );
    assert.match(
      expectOk(
        await editFileTool(
          { path: 'src/a.ts', old_string: 'keyName', new_string: 'name' },
          toolContext([ws]),
          approver,
        ),
      ),
      /The result around it:/,
    );
  });
});
