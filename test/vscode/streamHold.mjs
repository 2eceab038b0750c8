// Holds the fake server's answer stream at a chosen event until the test lets it go, so a test
// can act on a half-streamed answer without depending on timing. It is the fake's `sleep` (the
// waits of a step's `delayMs` and `deltaDelayMs`): real timers until a hold is armed; then the
// next `after` waits pass at once and the one after them blocks until release() (or until the
// client has gone).

/**
 * @typedef {object} StreamHold
 * @property {(ms: number, signal: AbortSignal) => Promise<void>} sleep the fake server's `sleep` option
 * @property {(after: number) => { reached: Promise<void>, release: () => void }} holdAfter arms a
 *   hold: `after` waits pass at once, the next one blocks; `reached` resolves when the stream is
 *   held there, `release()` lets it (and every later wait) go on with real timers
 */

/**
 * A new hold, disarmed: every wait uses a real timer that the client's going away cuts short.
 * @returns {StreamHold}
 */
export function createStreamHold() {
  /** @type {{ left: number, reach: () => void, released: Promise<void> } | undefined} */
  let armed;
  return {
    sleep(ms, signal) {
      const hold = armed;
      if (!hold) return realSleep(ms, signal);
      if (hold.left > 0) {
        hold.left -= 1;
        return Promise.resolve();
      }
      hold.reach();
      return /** @type {Promise<void>} */ (
        new Promise((resolve) => {
          void hold.released.then(() => resolve());
          signal.addEventListener('abort', () => resolve(), { once: true });
        })
      );
    },
    holdAfter(after) {
      /** @type {() => void} */
      let reach = () => undefined;
      /** @type {() => void} */
      let letGo = () => undefined;
      const reached = new Promise((resolve) => (reach = () => resolve(undefined)));
      const released = new Promise((resolve) => (letGo = () => resolve(undefined)));
      armed = { left: after, reach, released };
      return {
        reached,
        release() {
          armed = undefined;
          letGo();
        },
      };
    },
  };
}

/**
 * @param {number} ms
 * @param {AbortSignal} signal
 * @returns {Promise<void>}
 */
function realSleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
