/**
 * The checkpoint's content-addressed blobs: `<folder>/<sha256>`, the exact bytes of a file
 * (never decoded, so binary files come back byte for byte), each written once — the same
 * content kept twice is one blob — through a temporary file renamed into place, so a blob
 * is whole or absent. Keeps the session's total under its cap: a blob that would pass it is
 * not written, and the caller records the file as too large.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { SHA256_HEX, type FileState } from '../../core/rewind/fileState';
import { errorCode } from '../tools/paths';

/** SHA-256 of `bytes`, lower-case hexadecimal: a blob's name. */
export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const TEMP_PREFIX = '.tmp-';

/** The blobs of one session's checkpoints, with the bytes they take. */
export class BlobStore {
  private total: number;
  private readonly pending = new Map<string, Promise<FileState>>();

  private constructor(
    /** The blobs folder (created on the first write). */
    readonly dir: string,
    private readonly maxTotalBytes: number,
    private readonly sizes: Map<string, number>,
  ) {
    this.total = [...sizes.values()].reduce((a, b) => a + b, 0);
  }

  /**
   * The blobs already in `dir` (none when it does not exist yet), their total counted against
   * `maxTotalBytes`; temporary files a crash left behind are removed. Never throws: a folder
   * that cannot be listed is an error value.
   */
  static async open(
    dir: string,
    maxTotalBytes: number,
  ): Promise<{ readonly ok: true; readonly blobs: BlobStore } | { readonly ok: false; readonly error: string }> {
    const sizes = new Map<string, number>();
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (e) {
      if (errorCode(e) !== 'ENOENT')
        return { ok: false, error: `The checkpoint folder ${dir} could not be read (${errorCode(e) ?? String(e)}).` };
      names = [];
    }
    for (const name of names) {
      if (name.startsWith(TEMP_PREFIX)) await unlink(join(dir, name)).catch(() => undefined);
      else if (SHA256_HEX.test(name)) {
        const size = await stat(join(dir, name)).then(
          (s) => (s.isFile() ? s.size : undefined),
          () => undefined,
        );
        if (size !== undefined) sizes.set(name, size);
      }
    }
    return { ok: true, blobs: new BlobStore(dir, maxTotalBytes, sizes) };
  }

  /** The bytes all blobs take. */
  get totalBytes(): number {
    return this.total;
  }

  /** How many blobs are kept. */
  get count(): number {
    return this.sizes.size;
  }

  /** Whether the blob `sha256` is kept. */
  has(sha256: string): boolean {
    return this.sizes.has(sha256);
  }

  /**
   * Keeps `bytes` (whose SHA-256 is `sha256`) unless a blob of that hash is kept already:
   * `content` when kept; `too-large` (cap `session`) when it would pass the total cap;
   * `refused` (`unsaved`) when it could not be written. Concurrent calls for one hash
   * write it once.
   */
  keep(bytes: Uint8Array, sha256: string): Promise<FileState> {
    const size = bytes.byteLength;
    if (this.sizes.has(sha256)) return Promise.resolve({ kind: 'content', sha256, size });
    const running = this.pending.get(sha256);
    if (running) return running;
    if (this.total + size > this.maxTotalBytes)
      return Promise.resolve({ kind: 'too-large', size, cap: 'session', capBytes: this.maxTotalBytes, sha256 });
    this.total += size; // reserved now, so concurrent writes cannot pass the cap together
    const write = this.write(bytes, sha256).then(
      (): FileState => {
        this.sizes.set(sha256, size);
        return { kind: 'content', sha256, size };
      },
      (e: unknown): FileState => {
        this.total -= size;
        return {
          kind: 'refused',
          why: 'unsaved',
          detail: `its copy could not be saved in the checkpoint folder (${errorCode(e) ?? String(e)})`,
        };
      },
    );
    this.pending.set(sha256, write);
    return write.finally(() => this.pending.delete(sha256));
  }

  /**
   * The bytes of blob `sha256`, checked against its hash. Never throws: a missing, unreadable
   * or damaged blob is an error value.
   */
  async read(
    sha256: string,
  ): Promise<{ readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly error: string }> {
    if (!SHA256_HEX.test(sha256)) return { ok: false, error: `${JSON.stringify(sha256)} is not a blob name.` };
    let bytes: Buffer;
    try {
      bytes = await readFile(join(this.dir, sha256));
    } catch (e) {
      return { ok: false, error: `The kept copy ${sha256} could not be read (${errorCode(e) ?? String(e)}).` };
    }
    if (sha256Of(bytes) !== sha256)
      return { ok: false, error: `The kept copy ${sha256} is damaged (its bytes changed).` };
    return { ok: true, bytes };
  }

  private async write(bytes: Uint8Array, sha256: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const temp = join(this.dir, `${TEMP_PREFIX}${sha256.slice(0, 8)}-${randomBytes(4).toString('hex')}`);
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } catch (e) {
      await handle.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
      throw e;
    }
    await handle.close();
    await rename(temp, join(this.dir, sha256)).catch(async (e: unknown) => {
      await unlink(temp).catch(() => undefined);
      throw e;
    });
  }
}
