// Stops a detached child's whole process group (code-server and everything it spawned).
import { once } from 'node:events';

/** How long the group gets after SIGTERM before SIGKILL. */
const STOP_TIMEOUT_MS = 10_000;

/**
 * SIGTERM to the server's process group; SIGKILL whatever is left after STOP_TIMEOUT_MS.
 * @param {import('node:child_process').ChildProcess} child started with `detached: true` (a group leader)
 * @returns {Promise<void>}
 */
export async function stopProcessGroup(child) {
  if (!groupAlive(child.pid)) return;
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');
  killGroup(child.pid, 'SIGTERM');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  let timer;
  await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, STOP_TIMEOUT_MS)))]);
  clearTimeout(timer);
  while (groupAlive(child.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (groupAlive(child.pid)) killGroup(child.pid, 'SIGKILL');
}

/**
 * @param {number | undefined} pgid the group leader's pid (undefined if the spawn failed; process.kill then throws)
 * @returns {boolean}
 */
function groupAlive(pgid) {
  try {
    process.kill(-(/** @type {number} */ (pgid)), 0);
    return true;
  } catch (err) {
    if (err.code === 'ESRCH') return false;
    throw err;
  }
}

/**
 * @param {number | undefined} pgid the group leader's pid (undefined if the spawn failed; process.kill then throws)
 * @param {NodeJS.Signals} signal
 */
export function killGroup(pgid, signal) {
  try {
    process.kill(-(/** @type {number} */ (pgid)), signal);
  } catch (err) {
    if (err.code !== 'ESRCH') throw err;
  }
}
