/**
 * Reads a file fresh for the re-attach after a compaction (core/compaction/reattach.ts),
 * under read_file's rules: the path resolved and confined the same way (resolveToolPath,
 * then openConfined), secrets files refused (on the path as asked and on the real file it
 * leads to), folders, special files and binary files refused with a reason. Never throws.
 */
import { TextDecoder } from 'node:util';
import type { FreshRead } from '../../core/compaction/reattach';
import { secretFileReason } from '../../core/security/secretFiles';
import { formatBytes } from '../../core/platform/text';
import { guessBinaryType, looksBinary } from './binary';
import { openConfined } from './confinedFs';
import { errorCode, resolveToolPath, type PathSpace } from './paths';

/** At most this many bytes are read: a larger file is far over the re-attach cap anyway (its size is still reported). */
export const READ_FRESH_MAX_BYTES = 256 * 1024;

/** Bytes sniffed for binary content (as read_file does). */
const SNIFF_BYTES = 8192;

/**
 * The text of `requested` (at most `maxBytes` of it, decoded as UTF-8) and its size on disk,
 * or why it was not read — a reason never holding the file's content.
 */
export async function readFresh(
  space: PathSpace,
  requested: string,
  maxBytes = READ_FRESH_MAX_BYTES,
): Promise<FreshRead> {
  const asked = secretFileReason(requested);
  if (asked !== undefined)
    return { ok: false, reason: `it looks like a secrets file (${asked}), so it is never sent to the model` };
  const resolved = await resolveToolPath(space, requested, 'read');
  if (!resolved.ok) return { ok: false, reason: resolved.error };
  const real = secretFileReason(resolved.display) ?? secretFileReason(resolved.path);
  if (real !== undefined)
    return { ok: false, reason: `it leads to a secrets file (${real}), so it is never sent to the model` };
  if (!resolved.exists) return { ok: false, reason: 'it no longer exists' };
  const opened = await openConfined(resolved.path, [resolved.root], resolved.display);
  if (!opened.ok) return { ok: false, reason: opened.error };
  try {
    const { stats, handle } = opened;
    if (stats.isDirectory()) return { ok: false, reason: 'it is a folder' };
    if (!stats.isFile()) return { ok: false, reason: 'it is not a regular file' };
    const want = Math.min(stats.size, Math.max(SNIFF_BYTES, maxBytes));
    const buf = new Uint8Array(want);
    let got = 0;
    while (got < want) {
      const { bytesRead } = await handle.read(buf, got, want - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    const bytes = buf.subarray(0, got);
    if (looksBinary(bytes.subarray(0, SNIFF_BYTES)))
      return {
        ok: false,
        reason: `it is a binary file (${guessBinaryType(bytes, resolved.path)}, ${formatBytes(stats.size)})`,
      };
    return { ok: true, text: new TextDecoder('utf-8').decode(bytes), bytes: stats.size };
  } catch (e) {
    return { ok: false, reason: `it could not be read (${errorCode(e) ?? 'read error'})` };
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}
