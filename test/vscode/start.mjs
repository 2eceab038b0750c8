// `npm start`: builds the extension and runs it in a real VS Code (code-server) that you open
// in your browser. The repository is linked (not copied) into .cache/vscode/extensions, so
// after `npm run build` (or with `npm run watch` running) "Developer: Reload Window" picks up
// changes. Usage: node test/vscode/start.mjs [folder-to-open]   (default: this repository)
// Environment: PORT (default 8080; a free port is used when it is taken), ANTHROPIC_API_KEY
// (passed through to the extension host).
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { ensureHarness, REPO_ROOT } from './setup.mjs';
import { linkExtension, startCodeServer } from './codeServer.mjs';

const CACHE_DIR = join(REPO_ROOT, '.cache', 'vscode');
const DEFAULT_PORT = 8080;

async function main() {
  const folder = resolve(process.argv[2] ?? REPO_ROOT);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new Error(`${folder} is not a folder`);

  await ensureHarness();
  build();

  const extensionsDir = join(CACHE_DIR, 'extensions');
  const userDataDir = join(CACHE_DIR, 'user-data');
  const { id, linkPath } = linkExtension(REPO_ROOT, extensionsDir);
  // VS Code caches scanned extension manifests; drop the cache so package.json edits show up.
  rmSync(join(userDataDir, 'CachedProfilesData'), { recursive: true, force: true });
  log(`linked ${id}: ${linkPath} -> ${REPO_ROOT}`);

  const port = await choosePort();
  log(
    process.env.ANTHROPIC_API_KEY
      ? 'ANTHROPIC_API_KEY is set; it is passed to the extension host'
      : 'ANTHROPIC_API_KEY is not set; the extension will ask for a key (Context Pipeline: Set API Key)',
  );

  const server = await startCodeServer({
    workspaceDir: folder,
    extensionsDir,
    userDataDir,
    port,
    settings: {
      'files.watcherExclude': { '**/.cache/**': true, '**/node_modules/**': true, '**/.git/objects/**': true },
    },
  });

  let stopping = false;
  /** @param {string} signal what ends the server (a signal's name, or why) */
  const shutdown = async (signal) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping code-server …`);
    try {
      await server.stop();
      log('stopped');
    } catch (err) {
      log(`could not stop code-server cleanly: ${err.stack ?? err}`);
      process.exitCode = 1;
    }
    process.exit();
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // `npm start` does not pass a SIGTERM sent to npm on to this process; stop when npm is gone.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && shutdown('parent process exited'), 1000).unref();
  server.process.on('exit', (code, signal) => {
    if (stopping) return;
    log(`code-server exited unexpectedly (${code ?? signal}); see ${server.outputLog}`);
    process.exit(1);
  });

  console.log(`Context Pipeline is running in VS Code at ${server.url}`);
  log(
    `VS Code logs: ${server.logsDir} (extension host: <date>/exthost1/remoteexthost.log); code-server output: ${server.outputLog}`,
  );
  log('press Ctrl+C to stop');
}

/** `npm run build` in the repository, output shown as it runs. */
function build() {
  log('npm run build …');
  const res = spawnSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (res.error) throw new Error(`Could not run npm run build: ${res.error.message}`);
  if (res.status !== 0) throw new Error(`npm run build exited with ${res.status ?? res.signal}`);
}

/** PORT (or 8080) when it is free on 127.0.0.1, otherwise 0 (code-server picks a free one). */
async function choosePort() {
  const wanted = process.env.PORT ? Number(process.env.PORT) : DEFAULT_PORT;
  if (!Number.isInteger(wanted) || wanted < 0 || wanted > 65535)
    throw new Error(`PORT=${process.env.PORT} is not a port number`);
  if (await isFree(wanted)) return wanted;
  log(`port ${wanted} is in use; using a free port instead`);
  return 0;
}

/**
 * Whether `port` can be listened on at 127.0.0.1.
 * @param {number} port
 * @returns {Promise<boolean>}
 */
function isFree(port) {
  return new Promise((resolvePromise, reject) => {
    const probe = createServer();
    probe.once('error', (/** @type {NodeJS.ErrnoException} */ err) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolvePromise(false) : reject(err),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolvePromise(true)));
  });
}

/** @param {string} line */
function log(line) {
  process.stderr.write(`[start] ${line}\n`);
}

main().catch((err) => {
  log(`failed: ${err.stack ?? err}`);
  process.exit(1);
});
