/** run_command: a shell command in the workspace, after the user approves it. The contract; the host executes it. */
import * as v from 'valibot';
import { DEFAULT_TOOL_LIMITS as L } from '../limits';
import { checkInput, Int, NonBlank, NonEmpty, PATH_WORDS } from '../inputCheck';
import { formatCount as n } from '../../text/counts';
import type { ToolSpec } from '../toolDefinition';
import { PATH_HELP } from './pathHelp';

const Shape = v.strictObject({
  command: NonBlank,
  cwd: v.optional(NonEmpty),
  timeout_ms: v.optional(Int(1000, L.commandMaxTimeoutMs)),
});

/** Input of run_command. */
export type RunCommandInput = v.InferOutput<typeof Shape>;

const WORDS = {
  command: 'a non-empty string',
  cwd: PATH_WORDS,
  timeout_ms: `an integer from 1,000 to ${n(L.commandMaxTimeoutMs)} (milliseconds)`,
};

/** run_command's schema, input check and effect; it asks for approval itself, with the command. */
export const RUN_COMMAND_SPEC: ToolSpec<RunCommandInput> = {
  schema: {
    name: 'run_command',
    description: [
      'Run a shell command (`/bin/sh`; `cmd.exe` on Windows) in the workspace root (or in `cwd`, a folder inside the workspace) and get its combined stdout and stderr and its exit code.',
      'The user must approve each command before it runs; if they decline, do not run it again unchanged.',
      'There is no stdin (interactive programs get end-of-input).',
      `It is stopped after \`timeout_ms\` (default ${n(L.commandDefaultTimeoutMs)}, at most ${n(L.commandMaxTimeoutMs)}), killing its whole process group.`,
      `Output is capped at ${n(L.commandOutputChars)} characters (its start and end are kept).`,
      'Prefer read_file, list_files and search for reading the workspace.',
    ].join(' '),
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The shell command line.' },
        cwd: { type: 'string', description: `Folder to run in, ${PATH_HELP}. Default: the workspace root.` },
        timeout_ms: {
          type: 'integer',
          minimum: 1000,
          maximum: L.commandMaxTimeoutMs,
          description: `Default ${n(L.commandDefaultTimeoutMs)}.`,
        },
      },
      required: ['command'],
      additionalProperties: false,
    },
  },
  effect: 'run',
  origin: { kind: 'builtin' },
  approval: 'own',
  readOnly: false,
  validate: (input) => checkInput('run_command', Shape, WORDS, input),
  target: (input) => input.command,
};
