/**
 * What a tool call does. A call to a tool the pipeline defines carries its definition's effect
 * (`meta.effect`, recorded when the call was made: built-ins, MCP tools, session tools); any
 * other call — a replayed transcript's `read`, `Read`, `view`, `Bash`, `grep`, `Edit` … — is
 * recognised by its name and input. The cheap layers (snip, masking), re-attach, the file
 * index and nested instructions use it to find reads and edits and to describe a cleared
 * result. Pure.
 */
import type { ToolUseBlock, ToolEffect } from '../conversation/conversationModel';

/** The kind of work a tool call does. */
export type ToolKind = 'read' | 'edit' | 'list' | 'search' | 'run' | 'other';

/** A classified tool call: its kind, the file it touches (when it names one) and the lines read. */
export interface ToolCallInfo {
  readonly kind: ToolKind;
  /** The path as the model wrote it, when the input names one. */
  readonly path?: string;
  /** For reads: first line (1-based) and line count when the input gives them. */
  readonly offset?: number;
  readonly limit?: number;
}

const NAME_KINDS: ReadonlyArray<readonly [RegExp, ToolKind]> = [
  [/^(read|read_?file|readfile|view|view_?file|open_?file|cat|notebook_?read)$/i, 'read'],
  [
    /^(edit|edit_?file|multi_?edit|write|write_?file|str_replace(_based)?_edit(or|_tool)?|create_?file|apply_?patch|notebook_?edit|replace)$/i,
    'edit',
  ],
  [/^(ls|list|list_?files|list_?dir(ectory)?|glob|find_?files|tree)$/i, 'list'],
  [/^(grep|search|search_?files|rg|ripgrep|find|codebase_?search|web_?search|web_?fetch|fetch)$/i, 'search'],
  [/^(bash|shell|run|run_?command|exec|execute|terminal|run_?terminal_?cmd|powershell)$/i, 'run'],
];

const PATH_FIELDS = ['path', 'file_path', 'filePath', 'file', 'filename', 'target_file', 'notebook_path'] as const;

/** The kind of work of each effect a definition can declare. */
const EFFECT_KINDS: Readonly<Record<ToolEffect, ToolKind>> = {
  read: 'read',
  list: 'list',
  search: 'search',
  edit: 'edit',
  run: 'run',
  recall: 'other',
  plan: 'other',
  delegate: 'other',
  external: 'other',
};

/** A tool call as classification reads it: its name, input and, when recorded, its definition's effect. */
export type ClassifiableCall = Pick<ToolUseBlock, 'name' | 'input'> & {
  readonly meta?: { readonly effect?: ToolEffect };
};

/**
 * Classifies a tool call by its recorded effect, else by its name (and, for unknown names, by
 * its input's fields).
 */
export function classifyToolCall(use: ClassifiableCall): ToolCallInfo {
  const input = typeof use.input === 'object' && use.input !== null ? (use.input as Record<string, unknown>) : {};
  const effect = use.meta?.effect;
  let kind: ToolKind = effect ? EFFECT_KINDS[effect] : 'other';
  for (const [re, k] of effect ? [] : NAME_KINDS) {
    if (re.test(use.name)) {
      kind = k;
      break;
    }
  }
  const path = PATH_FIELDS.map((f) => input[f]).find((v): v is string => typeof v === 'string' && v.trim() !== '');
  // `str_replace_editor`-style tools say what they do in a `command` field.
  if (!effect && kind === 'edit' && input.command === 'view') kind = 'read';
  if (!effect && kind === 'other' && typeof input.command === 'string' && path === undefined) kind = 'run';
  const offset = positiveInt(input.offset) ?? positiveInt(input.start_line) ?? positiveInt(input.line);
  const limit = positiveInt(input.limit) ?? positiveInt(input.lines);
  return {
    kind,
    ...(path !== undefined ? { path } : {}),
    ...(offset !== undefined ? { offset } : {}),
    ...(limit !== undefined ? { limit } : {}),
  };
}

/** A one-line description of a call for a stub: its name and its most telling input, at most ~120 characters. */
export function describeToolCall(use: ClassifiableCall): string {
  const input = typeof use.input === 'object' && use.input !== null ? (use.input as Record<string, unknown>) : {};
  const info = classifyToolCall(use);
  const detail = info.path ?? firstString(input, ['command', 'pattern', 'query', 'url', 'glob', 'regex']);
  const shown = detail === undefined ? '' : ` ${clip(detail.replace(/\s+/g, ' ').trim(), 110)}`;
  return `${use.name}${shown}`;
}

function firstString(o: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return undefined;
}

function clip(s: string, n: number): string {
  if (s.length <= n) return s;
  let cut = n - 1;
  const code = s.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${s.slice(0, cut)}…`;
}

function positiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : undefined;
}
