import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { ESLint } from 'eslint';

const root = join(__dirname, '..', '..');

/**
 * The rule ids ESLint reports for `code` as if it were the file at `path` (repo-relative). Type-aware
 * rules need `path` to be a file of the TypeScript project, so the cases lint real files' paths.
 */
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
    ['src/core/platform/text.ts', "import * as vscode from 'vscode';\nexport const a = vscode;\n", true],
    ['src/core/platform/text.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n", true],
    ['src/core/platform/text.ts', "import { a } from '../host/extension';\nexport const b = a;\n", true],
    ['src/core/platform/text.ts', "import { a } from '../webview/chat/main';\nexport const b = a;\n", true],
    ['src/core/platform/text.ts', "import { a } from './platform/text';\nexport const b = a;\n", false],
    ['src/app/router.ts', "import * as vscode from 'vscode';\nexport const a = vscode;\n", true],
    ['src/app/router.ts', "import { a } from '../host/extension';\nexport const b = a;\n", true],
    ['src/app/router.ts', "import { a } from '../core/platform/text';\nexport const b = a;\n", false],
    ['src/webview/chat/main.ts', "import { a } from '../../core/platform/text';\nexport const b = a;\n", true],
    ['src/webview/chat/main.ts', "import { a } from '../../protocol/messages';\nexport const b = a;\n", false],
    ['src/protocol/validate.ts', "import { a } from '../core/platform/text';\nexport const b = a;\n", true],
    ['src/protocol/validate.ts', "import * as v from 'valibot';\nexport const b = v;\n", false],
    ['src/host/extension.ts', "import * as vscode from 'vscode';\nexport const a = vscode;\n", false],
  ];
  for (const [path, code, refused] of cases) {
    const what = code.split('\n')[0];
    it(`${path}: ${what} is ${refused ? 'refused' : 'allowed'}`, async () => {
      const ids = await ruleIds(code, path);
      assert.equal(ids.includes('no-restricted-imports'), refused, `rules reported: ${ids.join(', ') || 'none'}`);
    });
  }

  it('flags unused code and over-long lines', async () => {
    const ids = await ruleIds(
      `const unused = 1;\nexport const long = 1; // ${'x'.repeat(140)}\n`,
      'src/core/platform/text.ts',
    );
    assert.ok(ids.includes('@typescript-eslint/no-unused-vars'), ids.join(', '));
    assert.ok(ids.includes('max-len'), ids.join(', '));
  });
});

/**
 * The promise rules on src (typed lint): a promise nobody awaits or handles is an unhandled
 * rejection in the extension host; a `void` that lets one go says why next to it.
 */
describe('lint: promises in src', function () {
  this.timeout(120_000);
  const at = 'src/core/platform/text.ts';
  const asyncFn = 'async function f(): Promise<void> {}\n';

  const cases: Array<[string, string, string | undefined]> = [
    ['a promise neither awaited nor handled', `${asyncFn}f();\n`, '@typescript-eslint/no-floating-promises'],
    [
      'an async callback where a void one is expected',
      `${asyncFn}[1].forEach(async () => f());\n`,
      '@typescript-eslint/no-misused-promises',
    ],
    [
      'await on a value that is not a promise',
      'export async function g(): Promise<number> {\n  return await 1;\n}\n',
      '@typescript-eslint/await-thenable',
    ],
    ['`void` on a promise with no reason given', `${asyncFn}void f();\n`, 'local/void-promise-reason'],
    ['`void` on a promise with its reason above', `${asyncFn}// f cannot reject.\nvoid f();\n`, undefined],
    ['`void` on a promise with its reason on the line', `${asyncFn}void f(); // f cannot reject.\n`, undefined],
    ['`void` on a value that is not a promise', 'export const v = (a: () => number): void => void a();\n', undefined],
    ['a promise with a rejection handler', `${asyncFn}f().catch(() => undefined);\n`, undefined],
  ];
  for (const [what, code, rule] of cases)
    it(`${what}: ${rule ?? 'allowed'}`, async () => {
      const ids = await ruleIds(code, at);
      const promiseRules = ids.filter((id) => id.includes('promise') || id.includes('thenable') || id === 'fatal');
      assert.deepEqual(promiseRules, rule ? [rule] : [], `rules reported: ${ids.join(', ') || 'none'}`);
    });
});
