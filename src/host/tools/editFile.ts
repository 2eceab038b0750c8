/**
 * edit_file: exact string replacement in a workspace text file (or creation of a new
 * file), applied only after the user approved the diff, written atomically with the file's
 * line endings kept.
 */
import { readFile, stat } from 'node:fs/promises';
import { computeEdit, lineOf, snippetAround } from '../../core/tools/applyEdit';
import { formatBytes, lineCount } from '../../core/text';
import { formatCount, plural, toolError, toolOk, type ToolResult } from '../../core/tools/result';
import type { EditFileInput } from '../../core/tools/validateInput';
import { declinedMessage, type Approver } from '../approvals/approval';
import { writeFileAtomic } from './atomicWrite';
import { guessBinaryType, looksBinary } from './binary';
import { errorCode, resolveInWorkspace } from './paths';
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
  const resolved = await resolveInWorkspace(ctx.roots, input.path);
  if (!resolved.ok) return toolError(`edit_file: ${resolved.error}`);
  const shown = resolved.display;
  if (input.old_string === input.new_string) return toolError('edit_file: old_string and new_string are identical, so there is nothing to change.');

  let before = '';
  let after: string;
  let summary: string;
  if (!resolved.exists) {
    if (input.old_string !== '') {
      return toolError(`edit_file: ${shown} does not exist. To create it, call edit_file with old_string "" and the whole content as new_string; to edit another file, check the path with list_files.`);
    }
    after = input.new_string;
    summary = `Created ${shown} (${plural(lineCount(after), 'line')}, ${formatBytes(Buffer.byteLength(after))}).`;
  } else {
    const loaded = await loadText(resolved.path, shown, ctx.limits.editMaxFileBytes, ctx.limits.binarySniffBytes);
    if (!loaded.ok) return toolError(loaded.error);
    before = loaded.text;
    if (input.old_string === '') {
      if (before.length > 0) {
        return toolError(`edit_file: ${shown} already exists and is not empty, so it cannot be created. To change it, give the exact text to replace as old_string.`);
      }
      after = input.new_string;
      summary = `Wrote ${shown} (it was empty; now ${plural(lineCount(after), 'line')}).`;
    } else {
      const edit = computeEdit(before, { oldString: input.old_string, newString: input.new_string, replaceAll: input.replace_all === true }, shown);
      const secret = quotesForbidden(shown, resolved.path);
      if (!edit.ok) return toolError(secret ? `edit_file: old_string was not found exactly once in ${shown}; its lines are not quoted because it looks like a secrets file. Ask the user for the exact text to replace.` : edit.error);
      after = edit.after;
      const where = `line ${formatCount(lineOf(after, edit.firstIndex))}`;
      summary = `Edited ${shown}: replaced ${plural(edit.replacements, 'occurrence')} (first at ${where}).${secret ? ' (Not quoted: it looks like a secrets file.)' : ` The result around it:\n${snippetAround(after, edit.firstIndex, edit.newLength)}`}`;
    }
  }

  if (ctx.signal.aborted) return toolError(stoppedMessage('edit_file'));
  const decision = await approver.approveEdit({ path: resolved.path, displayPath: shown, before, after, isNewFile: !resolved.exists }, ctx.signal);
  if (ctx.signal.aborted) return toolError(`${stoppedMessage('edit_file')} ${shown} is unchanged.`);
  if (!decision.approved) {
    return toolError(`${declinedMessage(`this edit to ${shown}`, decision)} The file is unchanged. Do not retry the same edit; adjust it to the user's reason, or ask them how to proceed.`);
  }

  const now = await readFile(resolved.path, 'utf8').catch((e: unknown) => (errorCode(e) === 'ENOENT' ? undefined : null));
  const unchanged = resolved.exists ? now === before : now === undefined;
  if (!unchanged) return toolError(`edit_file: ${shown} changed on disk while the edit waited for approval, so the edit was not applied. Read the file again and redo the edit.`);
  await writeFileAtomic(resolved.path, after);
  return toolOk(summary);
}

async function loadText(path: string, shown: string, maxBytes: number, sniffBytes: number): Promise<Loaded> {
  const info = await stat(path);
  if (info.isDirectory()) return { ok: false, error: `edit_file: ${shown} is a folder, not a file.` };
  if (!info.isFile()) return { ok: false, error: `edit_file: ${shown} is not a regular file.` };
  if (info.size > maxBytes) return { ok: false, error: `edit_file: ${shown} is ${formatBytes(info.size)}, larger than the ${formatBytes(maxBytes)} edit_file handles.` };
  const bytes = await readFile(path);
  if (looksBinary(bytes.subarray(0, sniffBytes))) return { ok: false, error: `edit_file: ${shown} is a binary file (${guessBinaryType(bytes, path)}); only text files can be edited.` };
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    return { ok: false, error: `edit_file: ${shown} is not valid UTF-8 (another encoding?), and editing it would corrupt it; edit_file only edits UTF-8 text files.` };
  }
  return { ok: true, text };
}
