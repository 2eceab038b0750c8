/**
 * The `<file>.lock` that keeps two VS Code windows (processes) from writing one session.
 * A lock holds its owner's pid and a random token, so each lock is told apart from any
 * other, even of the same process. A lock whose process is dead is stale and is taken over
 * atomically: it is renamed aside (a rename moves one file exactly once, so only one taker
 * can move it) and kept only if what was moved is the very lock judged stale; a lock moved
 * by mistake (a racer had already replaced the stale one) is put back. Node fs only.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

/** Thrown when the session is already being written, by this process or another live one. */
export class SessionLockedError extends Error {
  /** The process holding the lock, when it is another process. */
  readonly holderPid: number | undefined;
  constructor(message: string, holderPid?: number) {
    super(message);
    this.name = 'SessionLockedError';
    this.holderPid = holderPid;
  }
}

/** A lock this process holds: its path and the exact content it wrote. */
export interface HeldLock {
  readonly path: string;
  readonly content: string;
}

const FILE_MODE = 0o600;
const ATTEMPTS = 5;

/** Whether a process is alive, by a signal-0 probe (EPERM: alive, another user's). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid at the start of a lock's content, if it is one. */
export function lockHolder(content: string | undefined): number | undefined {
  const pid = Number.parseInt((content ?? '').trim(), 10);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Creates `<file>.lock` holding our pid and a fresh token. Refused with SessionLockedError
 * while another live process holds it. A stale lock (dead process, unreadable, or ours from a
 * writer never closed) is taken over with `takeOverStale`; when several processes race for
 * it, exactly one gets the lock and the others see it held by a live process.
 */
export async function acquireLock(file: string, isAlive: (pid: number) => boolean = pidAlive): Promise<HeldLock> {
  const lock = `${file}.lock`;
  const content = `${process.pid}\n${randomBytes(8).toString('hex')}\n`;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (await createExclusive(lock, content)) return { path: lock, content };
    const seen = await readText(lock);
    if (seen === undefined) continue; // released meanwhile
    const holder = lockHolder(seen);
    if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
      throw new SessionLockedError(
        `The session ${path.basename(file)} is open in another VS Code window (process ${holder}).`,
        holder,
      );
    }
    await takeOverStale(lock, seen);
  }
  throw new SessionLockedError(`Could not lock the session ${path.basename(file)}: another window keeps taking it.`);
}

/**
 * Removes the stale lock `lock` if it still holds exactly `judged` (what the caller read and
 * judged stale); never removes any other lock. Renames it to a name of our own, then checks
 * what was moved: the judged lock is deleted; anything else (a racer's new lock) is linked
 * back in place. Resolves either way: the caller then tries to create its lock with an
 * exclusive create, which only one racer can win.
 */
export async function takeOverStale(lock: string, judged: string): Promise<void> {
  const aside = `${lock}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await fsp.rename(lock, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // another taker moved it first
    throw e;
  }
  try {
    const moved = await readText(aside);
    if (moved === judged || moved === undefined) return;
    // Not the lock we judged stale: a racer took that one over and this is its new lock.
    await putBack(aside, lock, moved);
  } finally {
    await fsp.rm(aside, { force: true });
  }
}

/** Whether `lock` is still ours; a missing lock (moved aside for a moment by a taker) is re-created. */
export async function stillHeld(lock: HeldLock): Promise<boolean> {
  const seen = await readText(lock.path);
  if (seen === lock.content) return true;
  if (seen !== undefined) return false;
  return (await createExclusive(lock.path, lock.content)) || (await readText(lock.path)) === lock.content;
}

/** Removes the lock if it is still ours (the same content: pid and token). */
export async function releaseLock(lock: HeldLock): Promise<void> {
  if ((await readText(lock.path)) === lock.content) await fsp.rm(lock.path, { force: true });
}

/** Puts a lock moved to `aside` back at `lock`, unless a lock was created there meanwhile. */
async function putBack(aside: string, lock: string, content: string): Promise<void> {
  try {
    await fsp.link(aside, lock);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return; // its owner finds out with stillHeld before its next write
    await fsp
      .writeFile(lock, content, { flag: 'wx', mode: FILE_MODE })
      .catch((e2: NodeJS.ErrnoException) => (e2.code === 'EEXIST' ? undefined : Promise.reject(e2)));
  }
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Creates `lock` with `content` if it does not exist, atomically (link of a complete temp file). */
async function createExclusive(lock: string, content: string): Promise<boolean> {
  const tmp = `${lock}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await fsp.writeFile(tmp, content, { mode: FILE_MODE });
  try {
    await fsp.link(tmp, lock);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // File systems without hard links: exclusive create (content written just after).
    try {
      await fsp.writeFile(lock, content, { flag: 'wx', mode: FILE_MODE });
      return true;
    } catch (e2) {
      if ((e2 as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e2;
    }
  } finally {
    await fsp.rm(tmp, { force: true });
  }
}
