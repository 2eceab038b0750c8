/**
 * read_file: a text file of the workspace as numbered lines, paged with offset/limit, long
 * lines cut, the whole result bounded, binary files refused with their size and type.
 */
import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { formatBytes, headChars, safeCutIndex } from '../../core/platform/text';
import { formatCount, plural } from '../../core/text/counts';
import { toolError, toolOk, type ToolResult } from '../../core/tools/result';
import type { ReadFileInput } from '../../core/tools/builtin/readFileSpec';
import { guessBinaryType, looksBinary } from './binary';
import { openConfined } from './confinedFs';
import { resolveToolPath } from './paths';
import { secretReadRefusal } from './secretGuard';
import { stoppedMessage, type ToolContext } from './toolContext';

/** Room kept under the result cap for the closing note. */
const FOOTER_RESERVE = 400;

/** The line-number prefix of read_file: right-aligned in 6 columns, then a tab. */
export function numberLine(lineNo: number, text: string): string {
  return `${String(lineNo).padStart(6)}\t${text}`;
}

/**
 * Reads `input.path` from line `offset` (1-based, default 1) — that line from character
 * `column` (1-based, default 1) — at most `limit` lines (default `limits.readDefaultLines`)
 * and at most `limits.maxResultChars` characters, each line prefixed by {@link numberLine}; a
 * cut line says the column to read on from. A note at the end says which lines were shown
 * and where to continue. Missing files, folders, binary files, offsets or columns past the
 * end and secret-looking files (secretGuard.ts) are error results.
 */
export async function readFileTool(input: ReadFileInput, ctx: ToolContext): Promise<ToolResult> {
  const refused = await secretReadRefusal('read_file', input.path, ctx);
  if (refused) return refused;
  const resolved = await resolveToolPath(ctx, input.path, 'read');
  if (!resolved.ok) return toolError(`read_file: ${resolved.error}`);
  const shown = resolved.display;
  if (!resolved.exists)
    return toolError(`read_file: ${shown} does not exist. Use list_files or search to find the right path.`);
  await ctx.beforeOpen?.();
  // Opened first, then proven to be the file inside the folder: a link flipped or a folder
  // swapped since the check above cannot make this read return an outside file.
  const opened = await openConfined(resolved.path, [resolved.root], shown);
  if (!opened.ok) return toolError(`read_file: ${opened.error}`);
  try {
    return await readOpened(input, ctx, opened.handle, opened.stats, shown, resolved.path);
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}

/** read_file on the file open as `handle` (its fstat `info`); `path` only names its type. */
async function readOpened(
  input: ReadFileInput,
  ctx: ToolContext,
  handle: FileHandle,
  info: Stats,
  shown: string,
  path: string,
): Promise<ToolResult> {
  const { limits, signal } = ctx;
  if (info.isDirectory())
    return toolError(
      `read_file: ${shown} is a folder, not a file. Use list_files with path "${shown}" to see what it contains.`,
    );
  if (!info.isFile())
    return toolError(
      `read_file: ${shown} is not a regular file (a socket, pipe or device); only text files can be read.`,
    );
  if (info.size === 0) return toolOk(`(${shown} is empty: 0 lines)`);
  const sample = await readHead(handle, limits.binarySniffBytes);
  if (looksBinary(sample)) {
    return toolError(
      `read_file: ${shown} is a binary file (${guessBinaryType(sample, path)}, ${formatBytes(info.size)}); only text files can be read.`,
    );
  }

  const offset = input.offset ?? 1;
  const column = input.column ?? 1;
  const limit = input.limit ?? limits.readDefaultLines;
  const budget = Math.max(0, limits.maxResultChars - FOOTER_RESERVE);
  const countAll = info.size <= limits.readCountLinesMaxBytes;
  const out: string[] = [];
  let chars = 0;
  let lineNo = 0;
  let lastShown = offset - 1;
  let cutLines = 0;
  let budgetHit = false;
  let more = false;

  const stream = handle.createReadStream({ encoding: 'utf8', start: 0, autoClose: false });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const raw of lines) {
      if (signal.aborted) return toolError(stoppedMessage('read_file'));
      lineNo++;
      if (lineNo < offset) continue;
      if (lineNo >= offset + limit || budgetHit) {
        more = true;
        if (countAll) continue;
        break;
      }
      const whole = lineNo === 1 ? raw.replace(/^\uFEFF/, '') : raw;
      // `column` starts the first line shown further in (reading on in a cut line).
      const from = lineNo === offset ? column - 1 : 0;
      if (from > 0 && from >= whole.length)
        return toolError(
          `read_file: column ${formatCount(column)} is past the end of line ${formatCount(lineNo)} of ${shown}, which has ${plural(whole.length, 'character')}.`,
        );
      const start = safeCutIndex(whole, from);
      const text = whole.slice(start);
      const prefix = start > 0 ? `[from column ${formatCount(start + 1)}] ` : '';
      let line = `${prefix}${text}`;
      if (text.length > limits.readMaxLineChars) {
        cutLines++;
        const kept = headChars(text, limits.readMaxLineChars);
        line = `${prefix}${kept}… [line cut: ${formatCount(text.length - kept.length)} more characters; read on with offset=${lineNo}, column=${start + kept.length + 1}]`;
      }
      const numbered = numberLine(lineNo, line);
      if (out.length > 0 && chars + numbered.length + 1 > budget) {
        budgetHit = true;
        more = true;
        if (countAll) continue;
        break;
      }
      out.push(numbered);
      chars += numbered.length + 1;
      lastShown = lineNo;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  if (signal.aborted) return toolError(stoppedMessage('read_file'));

  const total = countAll ? lineNo : undefined;
  if (out.length === 0) {
    return toolError(
      `read_file: offset ${formatCount(offset)} is past the end of ${shown}, which has ${plural(lineNo, 'line')}. Use a smaller offset.`,
    );
  }
  const notes: string[] = [];
  if (more) {
    const of = total !== undefined ? ` of ${formatCount(total)}` : ` (the file, ${formatBytes(info.size)}, continues)`;
    const why = budgetHit ? ` The result reached its ${formatCount(limits.maxResultChars)}-character limit.` : '';
    notes.push(
      `[Showing lines ${formatCount(offset)}–${formatCount(lastShown)}${of}.${why} Continue with offset=${lastShown + 1}.]`,
    );
  } else if (offset > 1) {
    notes.push(
      `[Showing lines ${formatCount(offset)}–${formatCount(lastShown)} of ${formatCount(lastShown)} (end of file).]`,
    );
  }
  if (cutLines > 0)
    notes.push(
      `[${plural(cutLines, 'line')} longer than ${formatCount(limits.readMaxLineChars)} characters ${cutLines === 1 ? 'was' : 'were'} cut.]`,
    );
  return toolOk(notes.length > 0 ? `${out.join('\n')}\n\n${notes.join('\n')}` : out.join('\n'));
}

/** The first `maxBytes` bytes of the open file. */
async function readHead(handle: FileHandle, maxBytes: number): Promise<Uint8Array> {
  const buf = new Uint8Array(maxBytes);
  const { bytesRead } = await handle.read(buf, 0, maxBytes, 0);
  return buf.subarray(0, bytesRead);
}
