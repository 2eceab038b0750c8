// Stops a detached child's whole process group (code-server and everything it spawned).
import { eventually } from './timeouts.mjs';

/** How long the group gets after SIGTERM before SIGKILL. */
const STOP_TIMEOUT_MS = 10_000;

/**
 * SIGTERM to the server's process group, then waits for the condition "no process of the
 * group is left" (the leader exits first; its extension host and other children about 2 s
 * later, and they send no event we could await); SIGKILL whatever is left after STOP_TIMEOUT_MS.
 * @param {import('node:child_process').ChildProcess} child started with `detached: true` (a group leader)
 * @returns {Promise<void>}
 */
export async function stopProcessGroup(child) {
  if (!groupAlive(child.pid)) return;
  killGroup(child.pid, 'SIGTERM');
  await eventually("code-server's process group to exit", () => !groupAlive(child.pid), {
    timeout: STOP_TIMEOUT_MS,
  }).catch(() => killGroup(child.pid, 'SIGKILL'));
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
