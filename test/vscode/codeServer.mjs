// Runs code-server (VS Code in the browser) under the harness's Node 24 and installs or links
// the extension into an extensions directory (VS Code's log files: codeServerLogs.mjs).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { harnessPaths } from './setup.mjs';
import { WORKBENCH_TIMEOUT } from './timeouts.mjs';

import { killGroup, stopProcessGroup } from './processGroup.mjs';

export { readExtensionHostLogs, readOutputChannelLogs } from './codeServerLogs.mjs';

/** User settings every harness instance starts from; `settings` passed to startCodeServer override them. */
export const DEFAULT_SETTINGS = Object.freeze({
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  // No sticky tree headers: they overlay the rows a test clicks in a short view.
  'workbench.tree.enableStickyScroll': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
});

const START_TIMEOUT_MS = WORKBENCH_TIMEOUT;

/**
 * Starts code-server on `workspaceDir` and resolves once its HTTP server answers /healthz.
 * Writes `<userDataDir>/User/settings.json` (existing settings are kept, then DEFAULT_SETTINGS
 * and `settings` are applied on top). code-server's own output goes to
 * `<userDataDir>/logs/code-server.out.log`; VS Code's logs to dated folders under `logsDir`.
 * @param {object} options
 * @param {string} options.workspaceDir folder to open
 * @param {string} options.extensionsDir `--extensions-dir`
 * @param {string} options.userDataDir `--user-data-dir` (also holds code-server's config file and data)
 * @param {number} [options.port] 0 (default) lets code-server pick a free port
 * @param {Record<string, string|undefined>} [options.env] added to the server's environment (and so the extension host's)
 * @param {Record<string, unknown>} [options.settings] user settings
 * @param {number} [options.startTimeoutMs]
 * @returns {Promise<{ url: string, baseUrl: string, port: number, process: import('node:child_process').ChildProcess,
 *   logsDir: string, outputLog: string, stop: () => Promise<void> }>} `url` opens the workspace folder
 */
export async function startCodeServer({
  workspaceDir,
  extensionsDir,
  userDataDir,
  port = 0,
  env = {},
  settings = {},
  startTimeoutMs = START_TIMEOUT_MS,
}) {
  const paths = requireInstalledHarness();
  workspaceDir = resolve(workspaceDir);
  const logsDir = join(userDataDir, 'logs');
  mkdirSync(logsDir, { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  writeUserSettings(userDataDir, settings);
  const outputLog = join(logsDir, 'code-server.out.log');

  const args = [
    paths.codeServerEntry,
    ...commonArgs(extensionsDir, userDataDir),
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    workspaceDir,
  ];
  // detached: the server gets its own process group, so stop() can end its whole tree
  // (VS Code's file watcher, extension host, ...), not just the code-server wrapper.
  const child = spawn(paths.node24, args, {
    cwd: workspaceDir,
    env: serverEnv(userDataDir, env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output = new OutputTail(outputLog);
  child.stdout.on('data', (d) => output.push(d));
  child.stderr.on('data', (d) => output.push(d));

  const killOnExit = () => killGroup(child.pid, 'SIGKILL');
  process.on('exit', killOnExit);
  let stopped;
  const stop = () => {
    stopped ??= stopProcessGroup(child).finally(() => process.off('exit', killOnExit));
    return stopped;
  };

  try {
    const baseUrl = await waitForListening(child, output, startTimeoutMs);
    await waitForHealthz(child, output, baseUrl, startTimeoutMs);
    const url = `${baseUrl}?folder=${encodeURIComponent(workspaceDir).replaceAll('%2F', '/')}`;
    return { url, baseUrl, port: Number(new URL(baseUrl).port), process: child, logsDir, outputLog, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Installs a .vsix with `code-server --install-extension` (as a user would) and returns the
 * folder it was installed to. Throws with code-server's output if the install fails.
 * @param {string} vsixPath
 * @param {string} extensionsDir
 * @param {string} userDataDir
 * @returns {Promise<string>} the installed extension's folder
 */
export async function installExtension(vsixPath, extensionsDir, userDataDir) {
  const paths = requireInstalledHarness();
  if (!existsSync(vsixPath)) throw new Error(`No .vsix at ${vsixPath}`);
  mkdirSync(extensionsDir, { recursive: true });
  mkdirSync(userDataDir, { recursive: true });
  const before = new Set(readdirSync(extensionsDir));
  const args = [
    paths.codeServerEntry,
    ...commonArgs(extensionsDir, userDataDir),
    '--install-extension',
    resolve(vsixPath),
    '--force',
  ];
  const child = spawn(paths.node24, args, { env: serverEnv(userDataDir, {}), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const [code, signal] = await once(child, 'close');
  const installed = readdirSync(extensionsDir).filter(
    (n) => !before.has(n) && statSync(join(extensionsDir, n)).isDirectory(),
  );
  if (code !== 0 || !/successfully installed/i.test(out) || installed.length !== 1) {
    throw new Error(
      `Installing ${vsixPath} failed (exit ${code ?? signal}, new folders: ${installed.join(', ') || 'none'}):\n${out.trim()}`,
    );
  }
  return join(extensionsDir, installed[0]);
}

/**
 * Links an extension's source folder into `extensionsDir` as
 * `<publisher>.<name>-<version>` (read from its package.json) and records it in the
 * directory's extensions.json, so VS Code loads it like an installed extension.
 * Rebuild (dist/) and reload the window to pick up changes.
 * @param {string} repoDir the extension's folder (with package.json)
 * @param {string} extensionsDir
 * @returns {{ id: string, version: string, linkPath: string }}
 */
export function linkExtension(repoDir, extensionsDir) {
  repoDir = resolve(repoDir);
  const pkg = JSON.parse(readFileSync(join(repoDir, 'package.json'), 'utf8'));
  for (const key of ['publisher', 'name', 'version']) {
    if (!pkg[key]) throw new Error(`${join(repoDir, 'package.json')} has no "${key}"`);
  }
  const id = `${pkg.publisher}.${pkg.name}`;
  const folderName = `${id}-${pkg.version}`;
  const linkPath = join(extensionsDir, folderName);
  mkdirSync(extensionsDir, { recursive: true });

  // Remove this extension's earlier links (other versions); refuse to touch real installs.
  for (const name of readdirSync(extensionsDir)) {
    if (name !== folderName && !name.startsWith(`${id}-`)) continue;
    const p = join(extensionsDir, name);
    if (!lstatSync(p).isSymbolicLink()) {
      throw new Error(
        `${p} is an installed copy, not a link; remove it (or use another extensions dir) to link ${repoDir}`,
      );
    }
    rmSync(p);
  }
  symlinkSync(repoDir, linkPath, 'dir');

  const manifestPath = join(extensionsDir, 'extensions.json');
  /** @type {ExtensionsJsonEntry[]} */
  const manifest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : [];
  const entries = manifest.filter((e) => e?.identifier?.id?.toLowerCase() !== id.toLowerCase());
  const location = pathToFileURL(linkPath);
  entries.push({
    identifier: { id },
    version: pkg.version,
    location: { $mid: 1, fsPath: linkPath, external: location.href, path: location.pathname, scheme: 'file' },
    relativeLocation: folderName,
    metadata: { installedTimestamp: Date.now(), source: 'vsix' },
  });
  writeFileSync(manifestPath, JSON.stringify(entries));
  return { id, version: pkg.version, linkPath };
}

/**
 * An entry of an extensions directory's extensions.json, written by VS Code: only `identifier.id`
 * is read here, every other field is kept as it is.
 * @typedef {{ identifier?: { id?: string } } & Record<string, unknown>} ExtensionsJsonEntry
 */

function requireInstalledHarness() {
  const paths = harnessPaths();
  for (const f of [paths.node24, paths.codeServerEntry]) {
    if (!existsSync(f))
      throw new Error(`${f} is missing; run \`node test/vscode/setup.mjs\` (or call ensureHarness()) first`);
  }
  return paths;
}

/**
 * Flags shared by the server and the CLI; an explicit config file keeps code-server from writing ~/.config/code-server.
 * @param {string} extensionsDir
 * @param {string} userDataDir
 * @returns {string[]}
 */
function commonArgs(extensionsDir, userDataDir) {
  const config = join(userDataDir, 'code-server.yaml');
  if (!existsSync(config)) {
    mkdirSync(userDataDir, { recursive: true });
    // Flags given on the command line override these; code-server rejects an empty file.
    writeFileSync(config, '# Written by test/vscode/codeServer.mjs\nauth: none\ncert: false\n');
  }
  return ['--config', config, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
}

/**
 * code-server keeps its own logs and heartbeat in $XDG_DATA_HOME/code-server; keep them in the user data dir.
 * @param {string} userDataDir
 * @param {Record<string, string | undefined>} env added to (or, when undefined, removed from) this process's environment
 * @returns {NodeJS.ProcessEnv}
 */
function serverEnv(userDataDir, env) {
  // PORT is dropped: code-server would let it override --bind-addr.
  /** @type {NodeJS.ProcessEnv} */
  const merged = { ...process.env, PORT: undefined, XDG_DATA_HOME: join(userDataDir, 'xdg-data'), ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  delete merged.NODE_OPTIONS; // options meant for the caller's Node 20 must not leak into Node 24
  return merged;
}

/**
 * The user's settings.json as VS Code saved it (code-server does not watch this file for edits
 * made outside it, so tests change settings through the UI and read them back here).
 * @param {string} userDataDir
 * @returns {Record<string, unknown>}
 */
export function readUserSettings(userDataDir) {
  return JSON.parse(readFileSync(join(userDataDir, 'User', 'settings.json'), 'utf8'));
}

/**
 * Merges `settings` (over DEFAULT_SETTINGS, over what the file already holds) into `<userDataDir>/User/settings.json`.
 * @param {string} userDataDir
 * @param {Record<string, unknown>} settings
 */
function writeUserSettings(userDataDir, settings) {
  const file = join(userDataDir, 'User', 'settings.json');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  let existing = {};
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    try {
      existing = text.trim() ? JSON.parse(text) : {};
    } catch (err) {
      throw new Error(`Cannot parse ${file} (${err.message}); the harness merges plain JSON only — fix or delete it`, {
        cause: err,
      });
    }
  }
  writeFileSync(file, JSON.stringify({ ...existing, ...DEFAULT_SETTINGS, ...settings }, null, 2) + '\n');
}

/** Keeps the last lines of the server's output for error messages and copies all of it to a file. */
class OutputTail {
  /** @param {string} file where all of the output is copied */
  constructor(file) {
    this.file = file;
    this.text = '';
    /** @type {Set<() => void>} called after each chunk */
    this.listeners = new Set();
    writeFileSync(file, '');
  }
  /** @param {Buffer | string} chunk */
  push(chunk) {
    const s = chunk.toString();
    appendFileSync(this.file, s);
    this.text = (this.text + s).slice(-20_000);
    for (const l of this.listeners) l();
  }
  tail(lines = 30) {
    return this.text.trimEnd().split('\n').slice(-lines).join('\n');
  }
}

/**
 * Waits for code-server to print the address it listens on.
 * @param {import('node:child_process').ChildProcess} child
 * @param {OutputTail} output
 * @param {number} timeoutMs
 * @returns {Promise<string>} the server's base URL (`http://host:port/`)
 */
function waitForListening(child, output, timeoutMs) {
  return new Promise((resolvePromise, reject) => {
    const check = () => {
      const m = /HTTP server listening on (http:\/\/[^\s/]+\/)/.exec(output.text);
      if (m) finish(null, m[1]);
    };
    /** @type {(code: number | null, signal: NodeJS.Signals | null) => void} */
    const onExit = (code, signal) =>
      finish(new Error(`code-server exited (${code ?? signal}) before listening. Its last output:\n${output.tail()}`));
    const timer = setTimeout(
      () =>
        finish(
          new Error(
            `code-server did not report listening within ${timeoutMs / 1000} s. Its last output:\n${output.tail()}`,
          ),
        ),
      timeoutMs,
    );
    /**
     * @param {Error | null} err
     * @param {string} [value] the base URL, given when `err` is null
     */
    function finish(err, value) {
      clearTimeout(timer);
      output.listeners.delete(check);
      child.off('exit', onExit);
      err ? reject(err) : resolvePromise(/** @type {string} */ (value));
    }
    output.listeners.add(check);
    child.on('exit', onExit);
    check();
  });
}

/**
 * Polls the server's /healthz until it answers OK.
 * @param {import('node:child_process').ChildProcess} child
 * @param {OutputTail} output
 * @param {string} baseUrl
 * @param {number} timeoutMs
 * @returns {Promise<void>}
 */
async function waitForHealthz(child, output, baseUrl, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no answer yet';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `code-server exited (${child.exitCode ?? child.signalCode}) while starting. Its last output:\n${output.tail()}`,
      );
    }
    try {
      const res = await fetch(new URL('healthz', baseUrl), { signal: AbortSignal.timeout(5_000) });
      if (res.ok) return;
      lastError = `HTTP ${res.status}`;
    } catch (err) {
      lastError = err.cause?.message ?? err.message;
    }
    await new Promise((r) => setTimeout(r, 200)); // poll interval
  }
  throw new Error(
    `code-server at ${baseUrl} did not answer /healthz within ${timeoutMs / 1000} s (${lastError}). Its last output:\n${output.tail()}`,
  );
}
