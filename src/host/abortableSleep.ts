/**
 * The one abortable timeout of the extension (a real timer): resolves after `ms`, or rejects
 * with `Error('aborted')` as soon as `signal` aborts (at once when it already has), clearing
 * the timer and its listener either way. The API client's retry wait and the summariser's
 * safety timeout both use it.
 */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
