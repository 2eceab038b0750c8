/** read_file: read a text file of the workspace, by pages of lines. The contract; the host executes it. */
import * as v from 'valibot';
import { DEFAULT_TOOL_LIMITS as L } from '../limits';
import { checkInput, Int, MAX_READ_LIMIT, NonEmpty, PATH_WORDS } from '../inputCheck';
import { formatCount as n } from '../../text/counts';
import type { ToolSpec } from '../toolDefinition';
import { PATH_HELP } from './pathHelp';

const Shape = v.strictObject({
  path: NonEmpty,
  offset: v.optional(Int(1, Number.MAX_SAFE_INTEGER)),
  limit: v.optional(Int(1, MAX_READ_LIMIT)),
  column: v.optional(Int(1, Number.MAX_SAFE_INTEGER)),
});

/** Input of read_file. */
export type ReadFileInput = v.InferOutput<typeof Shape>;

const WORDS = {
  path: PATH_WORDS,
  offset: 'an integer ≥ 1',
  limit: `an integer from 1 to ${n(MAX_READ_LIMIT)}`,
  column: 'an integer ≥ 1',
};

/** read_file's schema, input check and effect. */
export const READ_FILE_SPEC: ToolSpec<ReadFileInput> = {
  schema: {
    name: 'read_file',
    description: [
      'Read a text file of the workspace.',
      `Each line comes back prefixed with its line number and a tab (\`     7\\t…\`); that prefix is not part of the file, so never copy it into edit_file's old_string.`,
      `Returns at most ${n(L.readDefaultLines)} lines from \`offset\` (1-based, default 1); page through longer files with \`offset\` and \`limit\`.`,
      `Lines longer than ${n(L.readMaxLineChars)} characters are cut (read on with \`column\`), and one result holds at most ${n(L.maxResultChars)} characters; a note at the end says where to continue.`,
      'Binary files (images, archives, executables…) are refused with their size and type.',
    ].join(' '),
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: `The file to read, ${PATH_HELP}.` },
        offset: { type: 'integer', minimum: 1, description: 'First line to return (1-based). Default 1.' },
        limit: {
          type: 'integer',
          minimum: 1,
          description: `How many lines to return. Default ${n(L.readDefaultLines)}.`,
        },
        column: {
          type: 'integer',
          minimum: 1,
          description:
            'Start the first line returned (the one at `offset`) at this character (1-based), to read on in a line that was cut. Default 1.',
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  effect: 'read',
  origin: { kind: 'builtin' },
  approval: 'none',
  readOnly: true,
  validate: (input) => checkInput('read_file', Shape, WORDS, input),
  target: (input) => input.path,
};
