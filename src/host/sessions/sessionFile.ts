/**
 * The single writer of one session file. Appends go through a promise queue (lines never
 * interleave), each as one write of a complete line followed by fdatasync on one open file
 * descriptor, so an entry whose append resolved survives the process being killed. Whole-file
 * rewrites are atomic. Node fs only (no vscode), so it runs under plain mocha.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { encodeEntry, type SessionEntry } from '../../core/session/entries';
import { decodeLine } from '../../core/session/lineCodec';
import { redactSecrets } from '../../core/security/redact';
import { acquireLock, pidAlive, releaseLock, SessionLockedError, stillHeld, type HeldLock } from './sessionLock';

export { SessionLockedError } from './sessionLock';

/** Options of SessionWriter.open. */
export interface WriterOptions {
  /** Secrets (the API key) that must never reach the file: every occurrence is replaced by `[redacted]`. */
  readonly secrets?: () => readonly string[];
  /** Whether a process is alive; default `process.kill(pid, 0)`. Injected by tests. */
  readonly isAlive?: (pid: number) => boolean;
}

const FILE_MODE = 0o600;
const REGISTRY = Symbol.for('context-pipeline.session-writers');

/** Paths with a live writer in this process, shared even if this module is loaded twice. */
function registry(): Set<string> {
  const g = globalThis as unknown as Record<symbol, Set<string> | undefined>;
  return (g[REGISTRY] ??= new Set<string>());
}

/** Whether a writer of this process has `file` open. */
export function isOpenInProcess(file: string): boolean {
  return registry().has(path.resolve(file));
}

/**
 * Writer of one session file. Create with `SessionWriter.open`; at most one per file per
 * process, and a `<file>.lock` holding the pid keeps other live processes out (a lock left
 * by a dead process is taken over, by one process only: see sessionLock.ts). Before each
 * write it checks the lock is still its own; if another window has it, the write is refused
 * and so is every later one. `close()` releases both.
 */
export class SessionWriter {
  private tail: Promise<void> = Promise.resolve();
  private closing: Promise<void> | undefined;
  /** Set when the file could not be reopened after a rewrite: every later write fails with it. */
  private broken: Error | undefined;

  private constructor(
    /** Absolute path of the session file. */
    readonly path: string,
    private fh: FileHandle,
    private readonly lock: HeldLock,
    private readonly opts: WriterOptions,
    /** Set when the file does not end with a newline (a torn line): the next write starts a new line. */
    private needsNewline: boolean,
  ) {}

  /**
   * Opens `file` for appending (creating it, mode 0600, if missing) after taking the locks.
   * Rejects with SessionLockedError when another writer of this process or another live
   * process holds the file.
   */
  static async open(file: string, opts: WriterOptions = {}): Promise<SessionWriter> {
    const abs = path.resolve(file);
    if (registry().has(abs))
      throw new SessionLockedError(`The session ${path.basename(abs)} is already open in this window.`);
    registry().add(abs);
    try {
      const lock = await acquireLock(abs, opts.isAlive ?? pidAlive);
      try {
        const fh = await fsp.open(abs, 'a+', FILE_MODE);
        return new SessionWriter(abs, fh, lock, opts, await endsWithoutNewline(fh));
      } catch (e) {
        await releaseLock(lock);
        throw e;
      }
    } catch (e) {
      registry().delete(abs);
      throw e;
    }
  }

  /**
   * Appends one entry as one line. Resolves once the line is written and fdatasync'ed; rejects
   * (writing nothing) when the entry would not read back as valid, or with the I/O error.
   * Calls may overlap freely: lines are written in call order, never interleaved.
   */
  append(entry: SessionEntry): Promise<void> {
    if (this.closing) return Promise.reject(new Error(`The session ${path.basename(this.path)} is closed.`));
    let line: string;
    try {
      line = this.encode(entry);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.enqueue(() => this.writeLine(line));
  }

  /**
   * Replaces the whole file with `entries`, atomically (temp file in the same folder, fsync,
   * rename, fsync of the folder): a crash leaves either the old or the new file. Queued after
   * pending appends.
   */
  rewrite(entries: readonly SessionEntry[]): Promise<void> {
    if (this.closing) return Promise.reject(new Error(`The session ${path.basename(this.path)} is closed.`));
    let data: string;
    try {
      data = entries.map((e) => `${this.encode(e)}\n`).join('');
    } catch (e) {
      return Promise.reject(e);
    }
    return this.enqueue(async () => {
      await this.checkLock();
      await writeFileAtomic(this.path, data);
      // The old descriptor points at the replaced file: reopen, or refuse every later write.
      const old = this.fh;
      try {
        this.fh = await fsp.open(this.path, 'a+', FILE_MODE);
      } catch (e) {
        this.broken = new Error(
          `The session ${path.basename(this.path)} could not be reopened after it was rewritten: ${e instanceof Error ? e.message : String(e)}`,
        );
        throw this.broken;
      }
      this.needsNewline = false;
      await old.close();
    });
  }

  /** Waits for queued writes, closes the file and releases the locks. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.tail.then(async () => {
      try {
        await this.fh.close();
      } finally {
        await releaseLock(this.lock);
        registry().delete(this.path);
      }
    });
    return this.closing;
  }

  private encode(entry: SessionEntry): string {
    const line = redactSecrets(encodeEntry(entry), this.opts.secrets?.() ?? []);
    const check = decodeLine(line);
    if (!check.ok) throw new Error(`Refusing to write a session entry that would not read back (${check.reason}).`);
    return line;
  }

  private enqueue(job: () => Promise<void>): Promise<void> {
    const run = this.tail.then(job);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Throws (and refuses every later write) when the lock is no longer ours. */
  private async checkLock(): Promise<void> {
    if (this.broken) throw this.broken;
    if (await stillHeld(this.lock)) return;
    this.broken = new SessionLockedError(
      `The session ${path.basename(this.path)} was taken over by another VS Code window; this window stopped writing to it so that neither overwrites the other. Reopen the session to continue it here.`,
    );
    throw this.broken;
  }

  private async writeLine(line: string): Promise<void> {
    await this.checkLock();
    const buf = Buffer.from(`${this.needsNewline ? '\n' : ''}${line}\n`, 'utf8');
    try {
      for (let off = 0; off < buf.length;) off += (await this.fh.write(buf, off, buf.length - off)).bytesWritten;
      await this.fh.datasync();
      this.needsNewline = false;
    } catch (e) {
      this.needsNewline = true; // part of the line may be on disk: never glue the next one to it
      throw e;
    }
  }
}

/**
 * Writes `data` to `file` atomically: a temp file (mode 0600) in the same folder, fsync,
 * rename over `file`, then fsync of the folder (skipped where folders cannot be opened).
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fh = await fsp.open(tmp, 'wx', FILE_MODE);
  try {
    await fh.writeFile(data);
    await fh.sync();
    await fh.close();
    await fsp.rename(tmp, file);
  } catch (e) {
    await fh.close().catch(() => undefined);
    await fsp.rm(tmp, { force: true });
    throw e;
  }
  await syncDir(dir);
}

async function syncDir(dir: string): Promise<void> {
  let d: FileHandle | undefined;
  try {
    d = await fsp.open(dir, 'r');
    await d.sync();
  } catch {
    // Windows cannot fsync a folder; the rename is as durable as the platform makes it.
  } finally {
    await d?.close();
  }
}

async function endsWithoutNewline(fh: FileHandle): Promise<boolean> {
  const { size } = await fh.stat();
  if (size === 0) return false;
  const { buffer } = await fh.read(Buffer.alloc(1), 0, 1, size - 1);
  return buffer[0] !== 0x0a;
}
