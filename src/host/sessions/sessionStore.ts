/**
 * The folder of session files (`<globalStorage>/sessions/<id>.jsonl`): create, list, open,
 * delete, export. Node fs only, so it runs under plain mocha.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import {
  encodeEntry,
  SESSION_FORMAT,
  SESSION_VERSION,
  type ContinuedFrom,
  type HeaderEntry,
} from '../../core/session/entries';
import { sessionToMarkdown } from '../../core/session/markdown';
import type { ReplayedSession } from '../../core/session/replay';
import { isOpenInProcess, SessionWriter, writeFileAtomic } from './sessionFile';
import { redactSecrets } from '../../core/security/redact';
import { analyzeSession, loadSession, type LoadReport } from './sessionLoader';
import { lockHolder, pidAlive } from './sessionLock';
import { summarizeSession, type SessionSummary } from './sessionSummary';

export type { SessionSummary } from './sessionSummary';

/** What the store needs from outside; tests inject fixed values. */
export interface StoreDeps {
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  /** A number in [0, 1), for the random part of session ids. */
  readonly random: () => number;
  /** Secrets (the API key) that must never be written: redacted from every line and export. */
  readonly secrets?: () => readonly string[];
  /** Whether a process is alive (lock checks); default a signal-0 probe. */
  readonly isAlive?: (pid: number) => boolean;
  /** Told of every byte range `list` reads from a session file (tests count them). */
  readonly onListRead?: (file: string, position: number, bytes: number) => void;
}

/** An open session: the repaired conversation and the writer to continue it with. */
export type OpenResult =
  | {
      readonly ok: true;
      readonly id: string;
      readonly writer: SessionWriter;
      readonly session: ReplayedSession;
      readonly report?: LoadReport;
    }
  | { readonly ok: false; readonly error: string };

/** Outcome of an export or a delete. */
export type StoreResult<T = object> = ({ readonly ok: true } & T) | { readonly ok: false; readonly error: string };

const ID = /^[0-9A-Za-z][0-9A-Za-z_-]{0,127}$/;

/**
 * A time-sortable, unique-enough session id: the UTC second and 6 random base-36
 * characters, e.g. `2026-11-21T23-59-00-k3x9q0`.
 */
export function newSessionId(now: number, random: number): string {
  const stamp = new Date(now).toISOString().slice(0, 19).replace(/:/g, '-');
  const suffix = Math.floor(Math.min(Math.max(random, 0), 0.999999999) * 36 ** 6)
    .toString(36)
    .padStart(6, '0');
  return `${stamp}-${suffix}`;
}

/** Session files of one folder. Every method takes an id, never a path (ids are validated). */
export class SessionStore {
  /** `dir` is the sessions folder itself (created on first use, mode 0700). */
  constructor(
    readonly dir: string,
    private readonly deps: StoreDeps,
  ) {}

  /** The store under a VS Code extension's global storage path. */
  static inGlobalStorage(globalStorageFsPath: string, deps: StoreDeps): SessionStore {
    return new SessionStore(path.join(globalStorageFsPath, 'sessions'), deps);
  }

  /** Path of a session's file; throws on an id that is not a plain session id. */
  pathOf(id: string): string {
    if (!ID.test(id)) throw new Error(`Not a session id: ${JSON.stringify(id)}`);
    return path.join(this.dir, `${id}.jsonl`);
  }

  /** Creates a session file holding its header (written with exclusive create and fsync) and opens its writer. */
  async create(fields: {
    readonly model: string;
    readonly workspace: string;
    readonly title?: string;
    /** A subagent's session: its parent session and task call. */
    readonly parent?: { readonly sessionId: string; readonly toolUseId: string };
    /** A session handed off to: the session it continues. */
    readonly continuedFrom?: ContinuedFrom;
  }): Promise<{ id: string; header: HeaderEntry; writer: SessionWriter }> {
    await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 });
    for (let attempt = 0; ; attempt++) {
      const createdAt = this.deps.now();
      const id = newSessionId(createdAt, this.deps.random());
      const header: HeaderEntry = {
        type: 'header',
        format: SESSION_FORMAT,
        version: SESSION_VERSION,
        sessionId: id,
        createdAt,
        ...(fields.title !== undefined ? { title: fields.title } : {}),
        model: fields.model,
        workspace: fields.workspace,
        ...(fields.parent ? { parent: fields.parent } : {}),
        ...(fields.continuedFrom ? { continuedFrom: fields.continuedFrom } : {}),
      };
      let fh: Awaited<ReturnType<typeof fsp.open>>;
      try {
        fh = await fsp.open(this.pathOf(id), 'wx', 0o600);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 20) continue;
        throw e;
      }
      try {
        await fh.writeFile(`${redactSecrets(encodeEntry(header), this.secrets())}\n`);
        await fh.sync();
      } finally {
        await fh.close();
      }
      return { id, header, writer: await SessionWriter.open(this.pathOf(id), this.writerOptions()) };
    }
  }

  /**
   * Every session, newest activity first. Reads only the head and the tail of each file (see
   * summarizeSession); a damaged one is listed with `damaged` and the `damage` seen, and one
   * that cannot be read at all is listed too, damaged, with `error`: none is left out, so
   * each can be opened (the loader repairs it or explains why it cannot) or deleted. Only a
   * file deleted while the list was being read is not listed.
   */
  async list(): Promise<SessionSummary[]> {
    const names = await fsp
      .readdir(this.dir)
      .catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? [] : Promise.reject(e)));
    const ids = names.filter((n) => n.endsWith('.jsonl') && ID.test(n.slice(0, -6))).map((n) => n.slice(0, -6));
    const out = await Promise.all(ids.map((id) => this.summarize(id).catch((e: unknown) => this.unreadable(id, e))));
    return out
      .filter((s): s is SessionSummary => s !== undefined)
      .sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : -1));
  }

  /**
   * Opens a session: takes its writer (refused while another window has it), loads and
   * repairs it. On failure the writer is released and the error says why (and where the
   * backup is, when one was made).
   */
  async open(id: string): Promise<OpenResult> {
    const file = this.pathOf(id);
    if (!(await exists(file))) return { ok: false, error: `The session ${id} does not exist.` };
    let writer: SessionWriter;
    try {
      writer = await SessionWriter.open(file, this.writerOptions());
    } catch (e) {
      return { ok: false, error: e instanceof Error ? e.message : String(e) };
    }
    const r = await loadSession(file, { now: this.deps.now, rewrite: (entries) => writer.rewrite(entries) });
    if (!r.ok) {
      await writer.close();
      return { ok: false, error: r.error };
    }
    return { ok: true, id, writer, session: r.session, ...(r.report ? { report: r.report } : {}) };
  }

  /**
   * Deletes a session's file and its lock file. Its backups (`<id>.bak-*.jsonl`) are kept
   * and listed in the result so the UI can say so. Refused while the session is open here
   * or in another live process.
   */
  async delete(
    id: string,
  ): Promise<StoreResult<{ readonly removed: readonly string[]; readonly keptBackups: readonly string[] }>> {
    const file = this.pathOf(id);
    if (isOpenInProcess(file)) return { ok: false, error: `The session ${id} is open; close it before deleting it.` };
    const holder = lockHolder(await fsp.readFile(`${file}.lock`, 'utf8').catch(() => ''));
    if (holder !== undefined && holder !== process.pid && (this.deps.isAlive ?? pidAlive)(holder))
      return { ok: false, error: `The session ${id} is open in another VS Code window (process ${holder}).` };
    const removed: string[] = [];
    for (const p of [file, `${file}.lock`])
      if (
        await fsp.rm(p).then(
          () => true,
          () => false,
        )
      )
        removed.push(p);
    if (removed[0] !== file) return { ok: false, error: `The session ${id} does not exist.` };
    const keptBackups = (await fsp.readdir(this.dir))
      .filter((n) => n.startsWith(`${id}.bak-`))
      .map((n) => path.join(this.dir, n));
    return { ok: true, removed, keptBackups };
  }

  /** Writes the session's entries (repaired, secrets redacted, the file itself untouched) to `dest` as JSONL. */
  async exportJsonl(id: string, dest: string): Promise<StoreResult> {
    const a = await this.analyze(id);
    if (!a.ok) return a;
    await writeFileAtomic(dest, a.entries.map((e) => `${redactSecrets(encodeEntry(e), this.secrets())}\n`).join(''));
    return { ok: true };
  }

  /** Writes a readable Markdown transcript of the session to `dest` (secrets redacted). */
  async exportMarkdown(id: string, dest: string): Promise<StoreResult> {
    const md = await this.markdown(id);
    if (!md.ok) return md;
    await writeFileAtomic(dest, md.text);
    return { ok: true };
  }

  /**
   * The session's readable Markdown transcript (secrets redacted), read without taking its
   * writer: a session being written (a running subagent's) shows what it holds so far.
   */
  async markdown(id: string): Promise<StoreResult<{ readonly text: string }>> {
    const a = await this.analyze(id);
    if (!a.ok) return a;
    return { ok: true, text: redactSecrets(sessionToMarkdown(a.session), this.secrets()) };
  }

  /**
   * A session as its file holds it (repaired in memory, the file untouched), read without taking
   * its writer: the session a handoff continues, which `recall` searches read-only.
   */
  async read(id: string): Promise<StoreResult<{ readonly session: ReplayedSession }>> {
    const a = await this.analyze(id);
    return a.ok ? { ok: true, session: a.session } : a;
  }

  private async analyze(id: string) {
    const bytes = await fsp.readFile(this.pathOf(id)).catch(() => undefined);
    if (!bytes) return { ok: false as const, error: `The session ${id} does not exist.` };
    const a = analyzeSession(bytes, id, this.deps.now());
    return a.session && a.error === undefined
      ? { ok: true as const, session: a.session, entries: a.entries }
      : { ok: false as const, error: a.error ?? 'Nothing could be read.' };
  }

  private async summarize(id: string): Promise<SessionSummary> {
    const file = this.pathOf(id);
    const fh = await fsp.open(file, 'r');
    try {
      const stat = await fh.stat();
      const read = async (position: number, length: number) => {
        this.deps.onListRead?.(file, position, length);
        const { buffer, bytesRead } = await fh.read(Buffer.alloc(length), 0, length, position);
        return buffer.subarray(0, bytesRead);
      };
      return await summarizeSession(id, { read }, stat);
    } finally {
      await fh.close();
    }
  }

  /**
   * The list entry of a session file that could not be summarised (listed so it can be
   * opened or deleted); undefined when the file no longer exists (deleted meanwhile).
   */
  private async unreadable(id: string, e: unknown): Promise<SessionSummary | undefined> {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !(await exists(this.pathOf(id)))) return undefined;
    const stat = await fsp.stat(this.pathOf(id)).catch(() => undefined);
    return {
      id,
      title: id,
      createdAt: stat?.birthtimeMs ?? 0,
      updatedAt: stat?.mtimeMs ?? 0,
      turns: 0,
      hasMessages: false,
      model: 'unknown',
      sizeBytes: stat?.size ?? 0,
      damaged: true,
      error: e instanceof Error ? e.message : String(e),
    };
  }

  private secrets(): readonly string[] {
    return this.deps.secrets?.() ?? [];
  }

  private writerOptions() {
    return {
      ...(this.deps.secrets ? { secrets: this.deps.secrets } : {}),
      ...(this.deps.isAlive ? { isAlive: this.deps.isAlive } : {}),
    };
  }
}

async function exists(file: string): Promise<boolean> {
  return fsp.stat(file).then(
    () => true,
    () => false,
  );
}
