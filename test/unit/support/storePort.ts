/** A session store on disk behind the port the chat uses: for the tests that close and reopen a session. */
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreSessionPort } from '../../../src/host/chat/storeSessionPort';
import { SessionStore } from '../../../src/host/sessions/sessionStore';
import { fakeClock } from './builders';

/**
 * Runs `body` with a StoreSessionPort over a session store in a fresh temp folder named
 * `prefix…` (workspace `demo`, random 0.42), the store and the port reading `clock`, a fake
 * clock started at `start`. The folder is removed afterwards, whether `body` passes or throws.
 */
export async function withStorePort(
  prefix: string,
  start: number,
  body: (port: StoreSessionPort, clock: ReturnType<typeof fakeClock>) => Promise<void>,
): Promise<void> {
  const root = await fsp.mkdtemp(join(tmpdir(), prefix));
  try {
    const clock = fakeClock(start);
    const port = new StoreSessionPort(
      SessionStore.inGlobalStorage(root, { now: () => clock.now(), random: () => 0.42 }),
      () => 'demo',
      () => clock.now(),
    );
    await body(port, clock);
  } finally {
    await fsp.rm(root, { recursive: true, force: true });
  }
}
