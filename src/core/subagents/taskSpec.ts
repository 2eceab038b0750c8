/**
 * task: the main agent hands a piece of work (usually exploration) to a subagent that runs in
 * its own context; only its final report comes back. The contract (schema, input check,
 * effect); the session binds its execution (agent/taskTool.ts). Pure.
 */
import type { ToolSpec } from '../tools/toolDefinition';

/** The tool's name. */
export const TASK = 'task';
/** Most characters of a task's description (one short line, shown on its card). */
export const TASK_MAX_DESCRIPTION_CHARS = 120;
/** Most characters of a task's prompt. */
export const TASK_MAX_PROMPT_CHARS = 20_000;

/**
 * Most characters of a subagent's report kept in its result (the tool registry's general
 * cap); past the tool-result guard's threshold a report is saved to a file and previewed.
 */
export const TASK_REPORT_MAX_CHARS = 100_000;

/** A checked task call. */
export interface TaskInput {
  /** What the subagent does, in a few words (the card's title). */
  readonly description: string;
  /** Everything the subagent needs to know: it sees nothing of the main conversation. */
  readonly prompt: string;
}

/** task's schema, input check and effect: no approval of its own (the subagent's edits ask as usual). */
export const TASK_SPEC: ToolSpec<TaskInput> = {
  schema: {
    name: TASK,
    description: [
      'Hand a self-contained piece of work to a subagent: it runs in its own, separate context with read-only tools (read_file, list_files, search, recall), and only its final report comes back to you.',
      'Use it for exploration that would otherwise fill your context with many file reads or searches (where is X implemented, how does Y work, which files use Z), or for independent questions you can ask in parallel: several task calls in one answer run at the same time.',
      'The subagent sees none of this conversation: put everything it needs in the prompt (the goal, paths or names you know, what to report and how briefly).',
      'Do not use it for a single read or search you can do yourself, or for work that needs this conversation.',
      'Subagents cannot start subagents. Its report is its own words: check what matters before relying on it.',
    ].join(' '),
    inputSchema: {
      type: 'object',
      properties: {
        description: {
          type: 'string',
          description: `What the subagent does, in 3–8 words (at most ${TASK_MAX_DESCRIPTION_CHARS} characters), e.g. "Find where sessions are saved".`,
        },
        prompt: {
          type: 'string',
          description: `The whole task for the subagent (at most ${TASK_MAX_PROMPT_CHARS} characters): what to find or do, what you already know, and what its report must contain.`,
        },
      },
      required: ['description', 'prompt'],
      additionalProperties: false,
    },
  },
  effect: 'delegate',
  origin: { kind: 'session' },
  approval: 'none',
  readOnly: false,
  validate: (input) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      return { ok: false, error: `${TASK}: the input must be a JSON object { "description": "…", "prompt": "…" }.` };
    const extra = Object.keys(input).find((k) => k !== 'description' && k !== 'prompt');
    if (extra !== undefined)
      return {
        ok: false,
        error: `${TASK}: unknown parameter "${extra}". Accepted parameters: description, prompt (both required).`,
      };
    const { description, prompt } = input as { description?: unknown; prompt?: unknown };
    if (typeof description !== 'string' || description.trim() === '')
      return { ok: false, error: `${TASK}: "description" must be a short non-empty string.` };
    if (typeof prompt !== 'string' || prompt.trim() === '')
      return { ok: false, error: `${TASK}: "prompt" must be a non-empty string: the whole task for the subagent.` };
    const oneLine = description.replace(/\s+/g, ' ').trim();
    if (oneLine.length > TASK_MAX_DESCRIPTION_CHARS)
      return {
        ok: false,
        error: `${TASK}: "description" has ${oneLine.length} characters; keep it under ${TASK_MAX_DESCRIPTION_CHARS} (put the details in "prompt").`,
      };
    if (prompt.length > TASK_MAX_PROMPT_CHARS)
      return {
        ok: false,
        error: `${TASK}: "prompt" has ${prompt.length} characters, over ${TASK_MAX_PROMPT_CHARS}. Shorten it: name files and symbols instead of pasting them.`,
      };
    return { ok: true, input: { description: oneLine, prompt } };
  },
  target: (input) => input.description,
};
