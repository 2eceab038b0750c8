import { strict as assert } from 'node:assert';
import { inBackground } from '../../src/core/platform/background';

/** A log that records its errors and resolves `next` at the first one. */
function recordingLog(): { errors: string[]; next: Promise<string>; error(message: string): void } {
  let first: (m: string) => void = () => undefined;
  const next = new Promise<string>((resolve) => (first = resolve));
  const errors: string[] = [];
  return {
    errors,
    next,
    error(message: string) {
      errors.push(message);
      first(message);
    },
  };
}

/** Lets every queued promise callback run (one macrotask later). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('inBackground: work not waited for, its failure logged', () => {
  it('logs a rejection as "<what> failed:" with the stack', async () => {
    const log = recordingLog();
    inBackground(Promise.reject(new Error('disk gone')), log, 'Closing the session');
    const message = await log.next;
    assert.match(message, /^Closing the session failed: Error: disk gone\n\s+at /);
    assert.equal(log.errors.length, 1);
  });

  it('logs a thrown non-Error as text, and takes a bare thenable', async () => {
    const log = recordingLog();
    const thenable: PromiseLike<never> = {
      then(_onOk, onFail) {
        onFail?.('refused');
        return new Promise<never>(() => undefined);
      },
    };
    inBackground(thenable, log, 'Posting the status');
    assert.equal(await log.next, 'Posting the status failed: refused');
  });

  it('logs nothing when the work succeeds, and returns before it settles', async () => {
    const log = recordingLog();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let done = false;
    inBackground(
      gate.then(() => (done = true)),
      log,
      'Reading',
    );
    assert.equal(done, false);
    release();
    await gate;
    await settle();
    assert.equal(done, true);
    assert.deepEqual(log.errors, []);
  });
});
