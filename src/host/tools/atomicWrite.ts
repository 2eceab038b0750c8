/**
 * Writes a file atomically: the content goes to a temporary file next to it, which then
 * replaces the target by rename, so a reader never sees half a file.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces (or creates) `path` with `content` (UTF-8) via a temporary file and a rename.
 * An existing file keeps its permission bits; missing parent folders are created. Throws
 * the file system's error when it fails, after removing the temporary file.
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const mode = await stat(path).then((s) => s.mode & 0o7777, () => undefined);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, content, { encoding: 'utf8', flag: 'wx' });
    if (mode !== undefined) await chmod(temp, mode);
    await rename(temp, path);
  } catch (e) {
    await unlink(temp).catch(() => undefined);
    throw e;
  }
}
