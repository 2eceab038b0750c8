// `npm run typecheck`: the extension, unit tests, bench and fake server (tsconfig.json), then
// the real-VS-Code harness (test/vscode/tsconfig.json, JSDoc-checked .mjs) when its own
// dependencies are installed (`node test/vscode/setup.mjs`); without them it says so and skips.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** True when test/vscode's own packages (playwright-core) are installed, so its types resolve. */
export function harnessInstalled() {
  return existsSync(join(root, 'test', 'vscode', 'node_modules', 'playwright-core', 'package.json'));
}

/** Runs tsc on one project; returns its exit status. */
function tsc(project) {
  const r = spawnSync('npx', ['tsc', '-p', project, '--noEmit'], { cwd: root, stdio: 'inherit' });
  return r.status ?? 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let status = tsc('.');
  if (harnessInstalled()) status ||= tsc('test/vscode');
  else console.log('test/vscode not type-checked: its harness is not installed (node test/vscode/setup.mjs)');
  process.exit(status);
}
