/** list_files: list a folder, or the files matching a glob. The contract; the host executes it. */
import * as v from 'valibot';
import { DEFAULT_TOOL_LIMITS as L } from '../limits';
import { checkInput, NonEmpty, PATH_WORDS } from '../inputCheck';
import { formatCount as n } from '../../text/counts';
import type { ToolSpec } from '../toolDefinition';
import { PATH_HELP } from './pathHelp';

const Shape = v.strictObject({ path: v.optional(NonEmpty), glob: v.optional(NonEmpty) });

/** Input of list_files. */
export type ListFilesInput = v.InferOutput<typeof Shape>;

const WORDS = { path: PATH_WORDS, glob: 'a non-empty glob string' };

/** list_files's schema, input check and effect. */
export const LIST_FILES_SPEC: ToolSpec<ListFilesInput> = {
  schema: {
    name: 'list_files',
    description: [
      'List files of the workspace.',
      'Without `glob`: the entries directly inside `path` (default: the workspace root); folders end with `/`.',
      'With `glob`: every file below `path` whose path relative to `path` matches it, e.g. `**/*.ts` or `src/**/*.{js,jsx}` (`*` does not cross `/`, so `*.ts` only matches at the top level).',
      "What .gitignore files or the user's `files.exclude` setting hide, and `.git`, are left out.",
      `Sorted; at most ${n(L.listMaxEntries)} entries per call (narrow \`path\` or \`glob\` to see more).`,
    ].join(' '),
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: `The folder to list, ${PATH_HELP}. Default: the workspace root.` },
        glob: { type: 'string', description: 'Optional glob on paths relative to `path`; lists files recursively.' },
      },
      additionalProperties: false,
    },
  },
  effect: 'list',
  origin: { kind: 'builtin' },
  approval: 'none',
  readOnly: true,
  validate: (input) => checkInput('list_files', Shape, WORDS, input),
  target: (input) => input.path ?? input.glob,
};
