/**
 * The pure half of edit_file: find `old_string` exactly once (or every time) in a file's
 * text and replace it, keeping the file's line endings; explain a miss or an ambiguity in
 * a way the model can act on. No I/O.
 */
import { headChars } from '../platform/text';
import { formatCount } from '../text/counts';

/** The edited text and where the first replacement landed, or why nothing was replaced. */
export type EditComputation =
  | {
      readonly ok: true;
      readonly after: string;
      readonly replacements: number;
      readonly firstIndex: number;
      readonly newLength: number;
    }
  | { readonly ok: false; readonly error: string };

/** What to replace. */
export interface EditRequest {
  readonly oldString: string;
  readonly newString: string;
  readonly replaceAll: boolean;
}

/** The line ending most of `text` uses: CRLF when CRLF line breaks outnumber bare LFs. */
export function detectEol(text: string): '\r\n' | '\n' {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > lf ? '\r\n' : '\n';
}

/** `text` with every line break (LF or CRLF) written as `eol`. */
export function withEol(text: string, eol: '\r\n' | '\n'): string {
  return eol === '\n' ? text.replace(/\r\n/g, '\n') : text.replace(/\r?\n/g, '\r\n');
}

/**
 * Replaces `oldString` in `text` (`display` names the file in messages). The old and new
 * strings are first written with the file's line ending (the model usually sends LF);
 * the strings as given are tried next. 0 matches, or several without `replaceAll`, is an
 * error naming the count and the lines. `oldString` must not be empty.
 */
export function computeEdit(text: string, request: EditRequest, display: string): EditComputation {
  const eol = detectEol(text);
  const candidates = [withEol(request.oldString, eol), request.oldString];
  for (const old of candidates) {
    const at = occurrences(text, old);
    if (at.length === 0) continue;
    if (at.length > 1 && !request.replaceAll) {
      const lines = at.slice(0, 10).map((i) => lineOf(text, i));
      const more = at.length > 10 ? ', …' : '';
      return {
        ok: false,
        error: `edit_file: old_string occurs ${formatCount(at.length)} times in ${display} (at lines ${lines.join(', ')}${more}). Include more surrounding lines to make it unique, or set replace_all: true to replace every occurrence.`,
      };
    }
    const replacement = withEol(request.newString, eol);
    const after = request.replaceAll
      ? text.split(old).join(replacement)
      : text.slice(0, at[0]) + replacement + text.slice((at[0] as number) + old.length);
    return {
      ok: true,
      after,
      replacements: request.replaceAll ? at.length : 1,
      firstIndex: at[0] as number,
      newLength: replacement.length,
    };
  }
  return { ok: false, error: `edit_file: old_string was not found in ${display}.${nearMiss(text, request.oldString)}` };
}

/** 1-based line number of the character at `index`. */
export function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * Numbered lines of `text` around [startIndex, startIndex + length): `context` lines before
 * and after, at most `maxLines` lines, each at most 200 characters — what the model sees
 * after an edit to check it landed where intended.
 */
export function snippetAround(text: string, startIndex: number, length: number, context = 3, maxLines = 30): string {
  const lines = text.split(/\r\n|\r|\n/);
  const first = Math.max(1, lineOf(text, startIndex) - context);
  const last = Math.min(
    lines.length,
    lineOf(text, startIndex + Math.max(0, length - 1)) + context,
    first + maxLines - 1,
  );
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    const line = lines[n - 1] ?? '';
    out.push(`${String(n).padStart(6)}\t${line.length > 200 ? `${headChars(line, 200)}…` : line}`);
  }
  return out.join('\n');
}

function occurrences(text: string, needle: string): number[] {
  const at: number[] = [];
  if (needle === '') return at;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) at.push(i);
  return at;
}

/** A hint pointing at a line that looks like the start of `old`, when there is one. */
function nearMiss(text: string, old: string): string {
  const squash = (s: string) => s.trim().replace(/\s+/g, ' ');
  const firstLine = old
    .split(/\r\n|\r|\n/)
    .map(squash)
    .find((l) => l.length > 0);
  const fallback =
    ' Read the file again (read_file) and copy the text exactly, with its whitespace and indentation but without the line-number prefixes.';
  if (firstLine === undefined) return fallback;
  const lines = text.split(/\r\n|\r|\n/);
  let index = lines.findIndex((l) => squash(l) === firstLine);
  if (index < 0 && firstLine.length >= 8) index = lines.findIndex((l) => squash(l).includes(firstLine));
  if (index < 0) return fallback;
  const shown = JSON.stringify(headChars(lines[index] as string, 200));
  return ` Line ${formatCount(index + 1)} looks like the start of it: ${shown}. The difference may be in whitespace, indentation or the lines after it; read the file again around there and copy the text exactly.`;
}
