// `npm test`: type-check, unit tests, then the smoke test in a real VS Code (code-server +
// headless Chromium). Each step's output streams through (the harness install, which runs beside
// the first steps, prints its output at its turn); the first failure stops the run.
// Set CP_SKIP_VSCODE=1 to run only the fast steps while iterating (the harness's own type-check
// still runs then if the harness is already installed); CP_TEST_JOBS=1 runs one test file at a time.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { harnessInstalled } from './typecheck.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Two test files at a time, even on two cores: the unit test files and the VS Code tests wait on
// I/O, code-server and Chromium more than they compute, so on a 2-core machine two workers ran
// the unit tests in 104 s instead of ~170 s and the VS Code tests in 13 min instead of ~16. Each
// VS Code test has its own temp dirs and free ports. Two is what the suite is run with; more is
// untried, so CP_TEST_JOBS sets it (1: one file at a time, as before).
const jobs = String(Math.max(1, Math.floor(Number(process.env.CP_TEST_JOBS)) || 2));
const vscodeTests = readdirSync(join(root, 'test', 'vscode'))
  .filter((f) => f.endsWith('.test.mjs'))
  .map((f) => `test/vscode/${f}`);
const typecheckHarness = [
  'type-check the VS Code harness (JSDoc in test/vscode/*.mjs)',
  'npx',
  ['tsc', '-p', 'test/vscode', '--noEmit'],
];
const vscode = process.env.CP_SKIP_VSCODE !== '1';
const harnessStep = [
  'install the VS Code harness (code-server, Node 24, playwright-core)',
  process.execPath,
  ['test/vscode/setup.mjs'],
];
const steps = [
  ['type-check', 'npx', ['tsc', '-p', '.', '--noEmit']],
  [
    'lint (src/core folder cycles; ESLint: layer boundaries, unused code, line length; Prettier)',
    'npm',
    ['run', 'lint'],
  ],
  ['unit tests', 'npx', ['mocha', ...(jobs === '1' ? [] : ['--parallel', '--jobs', jobs])]],
  ...(!vscode
    ? harnessInstalled()
      ? [typecheckHarness]
      : []
    : [
        // Installed meanwhile (it mostly waits on apt and npm): see `background` below.
        harnessStep,
        typecheckHarness,
        ['package the .vsix the VS Code tests install', 'npm', ['run', 'package']],
        [
          'real VS Code (code-server) tests',
          process.execPath,
          ['--import', 'tsx', '--test', `--test-concurrency=${jobs}`, ...vscodeTests],
        ],
      ]),
];
const env = { ...process.env, CP_SKIP_PACKAGE: '1' };

/**
 * Runs `cmd` in the repository root; `quiet` keeps its output until it ends (for a step run in
 * the background beside others). `done` resolves with its exit status and that output.
 */
function run(cmd, args, quiet) {
  let child;
  const done = new Promise((resolve) => {
    child = spawn(cmd, args, { cwd: root, env, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    const out = [];
    child.stdout?.on('data', (d) => out.push(d));
    child.stderr?.on('data', (d) => out.push(d));
    child.on('error', (err) => resolve({ status: 1, output: `${String(err)}\n` }));
    child.on('close', (status, signal) => resolve({ status: status ?? signal, output: Buffer.concat(out).toString() }));
  });
  return { child, done };
}

// The harness install starts first, beside the fast steps; its step waits for it and prints its output.
const background = new Map(
  vscode ? [[harnessStep, { t0: Date.now(), ...run(harnessStep[1], harnessStep[2], true) }]] : [],
);

const started = Date.now();
for (const step of steps) {
  const [name, cmd, args] = step;
  const early = background.get(step);
  const t0 = early?.t0 ?? Date.now();
  console.log(`\n▶ ${name}: ${cmd} ${args.join(' ')}${early ? ' (started with the first step)' : ''}`);
  const r = await (early ?? run(cmd, args, false)).done;
  if (early) process.stdout.write(r.output);
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  if (r.status !== 0) {
    console.error(`\n✖ ${name} failed (exit ${r.status}) after ${secs}s`);
    // A harness install still under way stops with the run (its stamp is written only when it completes).
    for (const b of background.values()) b.child.kill('SIGTERM');
    process.exit(typeof r.status === 'number' && r.status > 0 ? r.status : 1);
  }
  console.log(`✔ ${name} (${secs}s)`);
}
console.log(`\nAll test steps passed in ${((Date.now() - started) / 1000).toFixed(1)}s.`);
