/**
 * edit_file: exact string replacement in a workspace text file (or creation of a new
 * file), applied only after the user approved the diff, written atomically with the file's
 * line endings kept.
 */
import { computeEdit, lineOf, snippetAround } from '../../core/tools/applyEdit';
import { formatBytes, lineCount } from '../../core/platform/text';
import { formatCount, plural } from '../../core/text/counts';
import { toolError, toolOk, type ToolResult } from '../../core/tools/result';
import type { EditFileInput } from '../../core/tools/builtin/editFileSpec';
import { declinedMessage, type Approver } from '../approvals/approval';
import { guessBinaryType, looksBinary } from './binary';
import { openConfined, writeConfined } from './confinedFs';
import { resolveToolPath, type ResolvedPath } from './paths';
import { quotesForbidden } from './secretGuard';
import { stoppedMessage, type ToolContext } from './toolContext';

/** The file's current text, or why it cannot be edited. */
type Loaded = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly error: string };

/**
 * Edits `input.path`: replaces the unique occurrence of `old_string` (every one with
 * `replace_all`) by `new_string`, or creates the file when it does not exist and
 * `old_string` is "". Asks `approver` first and writes nothing unless approved; also
 * refuses to write when the file changed while the user was deciding.
 */
export async function editFileTool(input: EditFileInput, ctx: ToolContext, approver: Approver): Promise<ToolResult> {
  const resolved = await resolveToolPath(ctx, input.path, 'write');
  if (!resolved.ok) return toolError(`edit_file: ${resolved.error}`);
  const shown = resolved.display;
  if (input.old_string === input.new_string)
    return toolError('edit_file: old_string and new_string are identical, so there is nothing to change.');

  let before = '';
  let after: string;
  let summary: string;
  if (!resolved.exists) {
    if (input.old_string !== '') {
      return toolError(
        `edit_file: ${shown} does not exist. To create it, call edit_file with old_string "" and the whole content as new_string; to edit another file, check the path with list_files.`,
      );
    }
    after = input.new_string;
    summary = `Created ${shown} (${plural(lineCount(after), 'line')}, ${formatBytes(Buffer.byteLength(after))}).`;
  } else {
    const loaded = await loadText(resolved, shown, ctx.limits.editMaxFileBytes, ctx.limits.binarySniffBytes);
    if (!loaded.ok) return toolError(loaded.error);
    before = loaded.text;
    if (input.old_string === '') {
      if (before.length > 0) {
        return toolError(
          `edit_file: ${shown} already exists and is not empty, so it cannot be created. To change it, give the exact text to replace as old_string.`,
        );
      }
      after = input.new_string;
      summary = `Wrote ${shown} (it was empty; now ${plural(lineCount(after), 'line')}).`;
    } else {
      const edit = computeEdit(
        before,
        { oldString: input.old_string, newString: input.new_string, replaceAll: input.replace_all === true },
        shown,
      );
      const secret = quotesForbidden(shown, resolved.path);
      if (!edit.ok)
        return toolError(
          secret
            ? `edit_file: old_string was not found exactly once in ${shown}; its lines are not quoted because it looks like a secrets file. Ask the user for the exact text to replace.`
            : edit.error,
        );
      after = edit.after;
      const where = `line ${formatCount(lineOf(after, edit.firstIndex))}`;
      summary = `Edited ${shown}: replaced ${plural(edit.replacements, 'occurrence')} (first at ${where}).${secret ? ' (Not quoted: it looks like a secrets file.)' : ` The result around it:\n${snippetAround(after, edit.firstIndex, edit.newLength)}`}`;
    }
  }

  if (ctx.signal.aborted) return toolError(stoppedMessage('edit_file'));
  const decision = await approver.approveEdit(
    { path: resolved.path, displayPath: shown, before, after, isNewFile: !resolved.exists },
    ctx.signal,
  );
  if (ctx.signal.aborted) return toolError(`${stoppedMessage('edit_file')} ${shown} is unchanged.`);
  if (!decision.approved) {
    return toolError(
      `${declinedMessage(`this edit to ${shown}`, decision)}\nThe file is unchanged. Do not retry the same edit; adjust it to the user's reason, or ask them how to proceed.`,
    );
  }

  // Checked again now, not at the time of the proposal: while the user decided, a folder on
  // the path may have been swapped for a link, or the file changed.
  const again = await resolveToolPath(ctx, input.path, 'write');
  const notApplied = 'The edit was not applied.';
  if (!again.ok) return toolError(`edit_file: ${again.error} ${notApplied}`);
  if (again.path !== resolved.path)
    return toolError(
      `edit_file: ${shown} now leads to ${again.path} (a folder or link on its path changed while the edit waited for approval). ${notApplied} Check the path and redo the edit.`,
    );
  const now = again.exists
    ? await loadText(again, shown, ctx.limits.editMaxFileBytes, ctx.limits.binarySniffBytes)
    : undefined;
  const unchanged = resolved.exists ? now?.ok === true && now.text === before : now === undefined;
  if (!unchanged)
    return toolError(
      `edit_file: ${shown} changed on disk while the edit waited for approval, so the edit was not applied. Read the file again and redo the edit.`,
    );
  const written = await writeConfined(again.path, again.root, after, shown);
  if (!written.ok) return toolError(`edit_file: ${written.error} ${notApplied}`);
  return toolOk(summary);
}

/** The text of the file at `resolved`, read through a confined open (see confinedFs.ts), or why it cannot be edited. */
async function loadText(resolved: ResolvedPath, shown: string, maxBytes: number, sniffBytes: number): Promise<Loaded> {
  const opened = await openConfined(resolved.path, [resolved.root], shown);
  if (!opened.ok) return { ok: false, error: `edit_file: ${opened.error}` };
  try {
    const info = opened.stats;
    if (info.isDirectory()) return { ok: false, error: `edit_file: ${shown} is a folder, not a file.` };
    if (!info.isFile()) return { ok: false, error: `edit_file: ${shown} is not a regular file.` };
    if (info.size > maxBytes)
      return {
        ok: false,
        error: `edit_file: ${shown} is ${formatBytes(info.size)}, larger than the ${formatBytes(maxBytes)} edit_file handles.`,
      };
    const bytes = await opened.handle.readFile();
    if (looksBinary(bytes.subarray(0, sniffBytes)))
      return {
        ok: false,
        error: `edit_file: ${shown} is a binary file (${guessBinaryType(bytes, resolved.path)}); only text files can be edited.`,
      };
    const text = bytes.toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(bytes)) {
      return {
        ok: false,
        error: `edit_file: ${shown} is not valid UTF-8 (another encoding?), and editing it would corrupt it; edit_file only edits UTF-8 text files.`,
      };
    }
    return { ok: true, text };
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}
