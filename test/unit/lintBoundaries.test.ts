import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { ESLint } from 'eslint';

const root = join(__dirname, '..', '..');

/** The rule ids ESLint reports for `code` as if it were the file at `path` (repo-relative). */
async function ruleIds(code: string, path: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  return (result?.messages ?? []).map((m) => m.ruleId ?? 'fatal');
}

/**
 * The layer boundaries live in eslint.config.mjs (`npm run lint`, part of `npm test`); these
 * cases prove the rules fire, so a config edit that silently drops one fails here.
 */
describe('lint: layer boundaries', function () {
  this.timeout(120_000);

  const cases: Array<[string, string, boolean]> = [
    ['src/core/x.ts', "import * as vscode from 'vscode';\nexport const a = vscode;\n", true],
    ['src/core/x.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n", true],
    ['src/core/x.ts', "import { a } from '../host/extension';\nexport const b = a;\n", true],
    ['src/core/x.ts', "import { a } from '../webview/chat/main';\nexport const b = a;\n", true],
    ['src/core/x.ts', "import { a } from './platform/text';\nexport const b = a;\n", false],
    ['src/app/x.ts', "import * as vscode from 'vscode';\nexport const a = vscode;\n", true],
    ['src/app/x.ts', "import { a } from '../host/extension';\nexport const b = a;\n", true],
    ['src/app/x.ts', "import { a } from '../core/platform/text';\nexport const b = a;\n", false],
    ['src/webview/chat/x.ts', "import { a } from '../../core/platform/text';\nexport const b = a;\n", true],
    ['src/webview/chat/x.ts', "import { a } from '../../protocol/messages';\nexport const b = a;\n", false],
    ['src/protocol/x.ts', "import { a } from '../core/platform/text';\nexport const b = a;\n", true],
    ['src/protocol/x.ts', "import * as v from 'valibot';\nexport const b = v;\n", false],
    ['src/host/x.ts', "import * as vscode from 'vscode';\nexport const a = vscode;\n", false],
  ];
  for (const [path, code, refused] of cases) {
    const what = code.split('\n')[0];
    it(`${path}: ${what} is ${refused ? 'refused' : 'allowed'}`, async () => {
      const ids = await ruleIds(code, path);
      assert.equal(ids.includes('no-restricted-imports'), refused, `rules reported: ${ids.join(', ') || 'none'}`);
    });
  }

  it('flags unused code and over-long lines', async () => {
    const ids = await ruleIds(`const unused = 1;\nexport const long = 1; // ${'x'.repeat(140)}\n`, 'src/core/x.ts');
    assert.ok(ids.includes('@typescript-eslint/no-unused-vars'), ids.join(', '));
    assert.ok(ids.includes('max-len'), ids.join(', '));
  });
});
