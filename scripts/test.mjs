// `npm test`: type-check, unit tests, then the smoke test in a real VS Code (code-server +
// headless Chromium). Each step's output streams through; the first failure stops the run.
// Set CP_SKIP_VSCODE=1 to run only the fast steps while iterating (the harness's own type-check
// still runs then if the harness is already installed).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { harnessInstalled } from './typecheck.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vscodeTests = readdirSync(join(root, 'test', 'vscode'))
  .filter((f) => f.endsWith('.test.mjs'))
  .map((f) => `test/vscode/${f}`);
const typecheckHarness = [
  'type-check the VS Code harness (JSDoc in test/vscode/*.mjs)',
  'npx',
  ['tsc', '-p', 'test/vscode', '--noEmit'],
];
const steps = [
  ['type-check', 'npx', ['tsc', '-p', '.', '--noEmit']],
  [
    'lint (src/core folder cycles; ESLint: layer boundaries, unused code, line length; Prettier)',
    'npm',
    ['run', 'lint'],
  ],
  ['unit tests', 'npx', ['mocha']],
  ...(process.env.CP_SKIP_VSCODE === '1'
    ? harnessInstalled()
      ? [typecheckHarness]
      : []
    : [
        [
          'install the VS Code harness (code-server, Node 24, playwright-core)',
          process.execPath,
          ['test/vscode/setup.mjs'],
        ],
        typecheckHarness,
        ['package the .vsix the VS Code tests install', 'npm', ['run', 'package']],
        [
          'real VS Code (code-server) tests',
          process.execPath,
          ['--import', 'tsx', '--test', '--test-concurrency=1', ...vscodeTests],
        ],
      ]),
];

const started = Date.now();
for (const [name, cmd, args] of steps) {
  const t0 = Date.now();
  console.log(`\n▶ ${name}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, CP_SKIP_PACKAGE: '1' } });
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  if (r.status !== 0) {
    console.error(`\n✖ ${name} failed (exit ${r.status ?? r.signal}) after ${secs}s`);
    process.exit(r.status || 1);
  }
  console.log(`✔ ${name} (${secs}s)`);
}
console.log(`\nAll test steps passed in ${((Date.now() - started) / 1000).toFixed(1)}s.`);
