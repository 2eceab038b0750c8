/** edit_file: exact string replacement in a file, or a new file; the user approves the diff. The contract; the host executes it. */
import * as v from 'valibot';
import { checkInput, NonEmpty, PATH_WORDS } from '../inputCheck';
import type { ToolSpec } from '../toolDefinition';
import { PATH_HELP } from './pathHelp';

const Shape = v.strictObject({
  path: NonEmpty,
  old_string: v.string(),
  new_string: v.string(),
  replace_all: v.optional(v.boolean()),
});

/** Input of edit_file. */
export type EditFileInput = v.InferOutput<typeof Shape>;

const WORDS = {
  path: PATH_WORDS,
  old_string: 'a string ("" to create a file)',
  new_string: 'a string',
  replace_all: 'true or false',
};

/** edit_file's schema, input check and effect; it asks for approval itself, with the diff. */
export const EDIT_FILE_SPEC: ToolSpec<EditFileInput> = {
  schema: {
    name: 'edit_file',
    description: [
      "Edit a text file by exact string replacement: `old_string` must occur in the file exactly as written (same whitespace and indentation, without read_file's line-number prefixes) and is replaced by `new_string`.",
      'It must occur once, unless `replace_all` is true; include surrounding lines to make it unique. Read the file first.',
      'To create a file, give a path that does not exist yet, `old_string: ""` and the whole content as `new_string`.',
      'The user sees every edit as a diff and it is applied only if they approve; if they decline, the file is unchanged, so do not retry the same edit.',
      "The file's line endings (LF or CRLF) are kept.",
    ].join(' '),
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: `The file to edit or create, ${PATH_HELP}.` },
        old_string: { type: 'string', description: 'The exact text to replace; "" to create a new file.' },
        new_string: { type: 'string', description: 'The replacement text (must differ from old_string).' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence of old_string. Default false.' },
      },
      required: ['path', 'old_string', 'new_string'],
      additionalProperties: false,
    },
  },
  effect: 'edit',
  origin: { kind: 'builtin' },
  approval: 'own',
  readOnly: false,
  validate: (input) => checkInput('edit_file', Shape, WORDS, input),
  target: (input) => input.path,
  lines: (input) => (input.replace_all ? undefined : changedLines(input.old_string, input.new_string)),
};

/**
 * The lines replacing `before` by `after` adds and removes, the lines both start and end with
 * left out (one hunk: a change in two places far apart counts the lines between them). A final
 * newline does not make a line, as in an editor.
 */
export function changedLines(before: string, after: string): { added: number; removed: number } {
  const a = linesOf(before);
  const b = linesOf(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  return { added: b.length - start - end, removed: a.length - start - end };
}

function linesOf(text: string): string[] {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return text === '' ? [] : body.split('\n');
}
