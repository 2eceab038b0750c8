// How long the real-VS-Code tests wait for the UI, in one place. Every value is an upper bound
// on waiting for a state (a row shown, a frame found, a file written), never a pause: on an
// idle machine the waits end within a second. They are generous because the suite must pass
// on a machine busy with other work; CP_TIMEOUT_SCALE=2 doubles them on a slower one.

const SCALE = Math.max(1, Number(process.env.CP_TIMEOUT_SCALE) || 1);

/**
 * Scales a bound by CP_TIMEOUT_SCALE.
 * @param {number} ms
 * @returns {number}
 */
export const scaled = (ms) => Math.round(ms * SCALE);

/** A state the UI reaches in response to a gesture or a model answer (a row, a card, an answer). */
export const UI_TIMEOUT = scaled(60_000);

/** The workbench loading or reloading, code-server starting. */
export const WORKBENCH_TIMEOUT = scaled(120_000);

/** One try of a gesture (F1, Ctrl+P, a right-click) before it is retried if its result did not show. */
export const GESTURE_TRY = scaled(10_000);

/**
 * A whole node:test suite of the real-VS-Code tests (many UI waits in a row).
 * @param {number} ms
 * @returns {number}
 */
export const suiteTimeout = (ms) => scaled(ms);

/**
 * Polls `probe` (sync or async) until it returns a truthy value, which it returns; rethrows
 * the probe's last error, or names `what`, after `timeout`. For states with no locator.
 * @template T
 * @param {string} what
 * @param {() => T | undefined | null | false | Promise<T | undefined | null | false>} probe
 * @param {{ timeout?: number, interval?: number }} [options]
 * @returns {Promise<T>}
 */
export async function eventually(what, probe, { timeout = UI_TIMEOUT, interval = 100 } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw last ?? new Error(`timed out after ${timeout / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, interval)); // poll interval
  }
}
