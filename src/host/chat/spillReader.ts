/**
 * The recall tool's view of a session's files folder: the pastes and tool outputs the session
 * saved there (see spillWriter.ts), read-only. Plain Node (no `vscode`), so it is unit-tested.
 */
import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SpilledOutput, SpillReader } from '../../core/recall/corpus';

/** Bounds on what one read of the folder loads. */
export interface SpillReaderLimits {
  /** Larger files are skipped (bytes). */
  readonly maxFileBytes: number;
  /** Reading stops once this many bytes were loaded. */
  readonly maxTotalBytes: number;
  /** At most this many files are read. */
  readonly maxFiles: number;
}

/** Defaults: the saved outputs are at most a few MB each; a session rarely has more than a few dozen. */
export const DEFAULT_SPILL_READER_LIMITS: SpillReaderLimits = {
  maxFileBytes: 5_000_000,
  maxTotalBytes: 50_000_000,
  maxFiles: 500,
};

/**
 * A SpillReader over the regular files directly inside `directory` (no links, no subfolders),
 * sorted by name, as UTF-8 text; files with NUL bytes (binary), over the size cap or beyond
 * the totals are skipped. A missing or unreadable folder gives an empty list; never throws.
 */
export function folderSpillReader(
  directory: string,
  limits: SpillReaderLimits = DEFAULT_SPILL_READER_LIMITS,
): SpillReader {
  return {
    read: async () => {
      let entries: Dirent[];
      try {
        entries = await readdir(directory, { withFileTypes: true });
      } catch {
        return [];
      }
      const out: SpilledOutput[] = [];
      let total = 0;
      for (const e of entries
        .filter((x) => x.isFile())
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        if (out.length >= limits.maxFiles) break;
        const path = join(directory, e.name);
        try {
          const info = await stat(path);
          if (info.size > limits.maxFileBytes || total + info.size > limits.maxTotalBytes) continue;
          const bytes = await readFile(path);
          if (bytes.includes(0)) continue;
          total += bytes.length;
          out.push({ path, text: bytes.toString('utf8') });
        } catch {
          continue;
        }
      }
      return out;
    },
  };
}
