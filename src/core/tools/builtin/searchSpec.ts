/** search: a regular expression over the workspace's files, line by line. The contract; the host executes it. */
import * as v from 'valibot';
import { DEFAULT_TOOL_LIMITS as L } from '../limits';
import { checkInput, Int, NonEmpty, PATH_WORDS } from '../inputCheck';
import { formatCount as n } from '../../text/counts';
import type { ToolSpec } from '../toolDefinition';
import { PATH_HELP } from './pathHelp';

const Shape = v.strictObject({
  pattern: NonEmpty,
  path: v.optional(NonEmpty),
  glob: v.optional(NonEmpty),
  literal: v.optional(v.boolean()),
  case_sensitive: v.optional(v.boolean()),
  max_results: v.optional(Int(1, L.searchMaxMatches)),
});

/** Input of search. */
export type SearchInput = v.InferOutput<typeof Shape>;

const WORDS = {
  pattern: 'a non-empty string',
  path: PATH_WORDS,
  glob: 'a non-empty glob string',
  literal: 'true or false',
  case_sensitive: 'true or false',
  max_results: `an integer from 1 to ${n(L.searchMaxMatches)}`,
};

/** search's schema, input check and effect. */
export const SEARCH_SPEC: ToolSpec<SearchInput> = {
  schema: {
    name: 'search',
    description: [
      'Search the contents of workspace files with a JavaScript regular expression, matched line by line.',
      `Returns \`path:line: text\` for each matching line, at most \`max_results\` (default and maximum ${n(L.searchMaxMatches)}); long lines are shown as a window of about ${n(L.searchMaxLineChars)} characters around the match.`,
      'Narrow with `path` (a folder or a file) and `glob` (on paths relative to `path`, e.g. `**/*.ts`).',
      `Skips binary files, files over ${n(L.searchMaxFileBytes / 1_000_000)} MB, and what .gitignore or files.exclude hide.`,
      'Set `literal: true` to search for plain text, `case_sensitive: false` to ignore case.',
    ].join(' '),
    inputSchema: {
      type: 'object',
      properties: {
        pattern: {
          type: 'string',
          description: 'JavaScript regular expression (no slashes, no flags), or plain text with `literal: true`.',
        },
        path: {
          type: 'string',
          description: `Folder or file to search, ${PATH_HELP}. Default: the whole workspace.`,
        },
        glob: { type: 'string', description: 'Only search files whose path relative to `path` matches this glob.' },
        literal: { type: 'boolean', description: 'Treat `pattern` as plain text. Default false.' },
        case_sensitive: { type: 'boolean', description: 'Default true.' },
        max_results: {
          type: 'integer',
          minimum: 1,
          maximum: L.searchMaxMatches,
          description: `Default ${n(L.searchMaxMatches)}.`,
        },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
  effect: 'search',
  origin: { kind: 'builtin' },
  approval: 'none',
  readOnly: true,
  validate: (input) => checkInput('search', Shape, WORDS, input),
  target: (input) => input.pattern,
  scope: (input) => [input.path, input.glob].filter((s) => s !== undefined).join(' ') || undefined,
};
