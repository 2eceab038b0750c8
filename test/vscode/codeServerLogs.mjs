// Reads the log files a code-server run leaves under its logs dir: the extension host's and an
// extension's output channel.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Extension-host log files under a code-server logs dir (`<logsDir>/<date>/exthost<N>/remoteexthost.log`),
 * oldest session first.
 * @param {string} logsDir the `logsDir` returned by startCodeServer
 * @returns {{ file: string, text: string }[]}
 */
export function readExtensionHostLogs(logsDir) {
  return findFiles(
    logsDir,
    (path, name) => /^exthost\d*$/.test(path.split('/').at(-2) ?? '') && /^(remote)?exthost\.log$/.test(name),
  ).map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}

/**
 * Log files of an extension's output channel named `channelName`
 * (`output_logging_*` files `<N>-<name>.log`, or `<extension id>/<name>.log` for log channels).
 * @param {string} logsDir
 * @param {string} channelName
 * @returns {{ file: string, text: string }[]}
 */
export function readOutputChannelLogs(logsDir, channelName) {
  const plain = `${channelName}.log`;
  return findFiles(logsDir, (_path, name) => name === plain || (name.endsWith(`-${plain}`) && /^\d+-/.test(name))).map(
    (file) => ({ file, text: readFileSync(file, 'utf8') }),
  );
}

/**
 * Files anywhere under `dir` (recursively) that `predicate` accepts, sorted by path.
 * @param {string} dir
 * @param {(path: string, name: string) => boolean} predicate gets the file's path and its name
 * @returns {string[]}
 */
function findFiles(dir, predicate) {
  if (!existsSync(dir)) return [];
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath ?? entry.path, entry.name);
    if (entry.isFile() && predicate(path, entry.name)) found.push(path);
  }
  return found.sort();
}
