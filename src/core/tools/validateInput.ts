/**
 * Runtime validation of the workspace tools' inputs. The model's JSON is untrusted: every
 * call is checked against the same shapes schemas.ts advertises, and a failure becomes one
 * sentence the model can act on, e.g. `read_file: "path" is required (a non-empty string)`.
 */
import * as v from 'valibot';
import { headChars } from '../platform/text';
import { DEFAULT_TOOL_LIMITS as L } from './limits';
import { formatCount } from './result';
import { RECALL_TOOL_NAME, TOOL_NAMES } from './schemas';

const NonEmpty = v.pipe(v.string(), v.minLength(1));
const Int = (min: number, max: number) => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
const MAX_READ_LIMIT = 1_000_000;

const ReadFileSchema = v.strictObject({
  path: NonEmpty,
  offset: v.optional(Int(1, Number.MAX_SAFE_INTEGER)),
  limit: v.optional(Int(1, MAX_READ_LIMIT)),
  column: v.optional(Int(1, Number.MAX_SAFE_INTEGER)),
});
const ListFilesSchema = v.strictObject({ path: v.optional(NonEmpty), glob: v.optional(NonEmpty) });
const SearchSchema = v.strictObject({
  pattern: NonEmpty,
  path: v.optional(NonEmpty),
  glob: v.optional(NonEmpty),
  literal: v.optional(v.boolean()),
  case_sensitive: v.optional(v.boolean()),
  max_results: v.optional(Int(1, L.searchMaxMatches)),
});
const EditFileSchema = v.strictObject({
  path: NonEmpty,
  old_string: v.string(),
  new_string: v.string(),
  replace_all: v.optional(v.boolean()),
});
const RunCommandSchema = v.strictObject({
  command: v.pipe(v.string(), v.trim(), v.minLength(1)),
  cwd: v.optional(NonEmpty),
  timeout_ms: v.optional(Int(1000, L.commandMaxTimeoutMs)),
});
const RecallSchema = v.strictObject({
  query: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1))),
  id: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1))),
  turn: v.optional(Int(1, Number.MAX_SAFE_INTEGER)),
  compaction: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1))),
  offset: v.optional(Int(1, Number.MAX_SAFE_INTEGER)),
  limit: v.optional(Int(1, MAX_READ_LIMIT)),
});

/** Input of read_file. */
export type ReadFileInput = v.InferOutput<typeof ReadFileSchema>;
/** Input of list_files. */
export type ListFilesInput = v.InferOutput<typeof ListFilesSchema>;
/** Input of search. */
export type SearchInput = v.InferOutput<typeof SearchSchema>;
/** Input of edit_file. */
export type EditFileInput = v.InferOutput<typeof EditFileSchema>;
/** Input of run_command. */
export type RunCommandInput = v.InferOutput<typeof RunCommandSchema>;
/** Input of recall (which of query / id / turn is given is checked by the recall tool itself). */
export type RecallInput = v.InferOutput<typeof RecallSchema>;

/** A call whose input has been checked, tagged by tool name. */
export type ValidatedToolCall =
  | { readonly name: 'read_file'; readonly input: ReadFileInput }
  | { readonly name: 'list_files'; readonly input: ListFilesInput }
  | { readonly name: 'search'; readonly input: SearchInput }
  | { readonly name: 'edit_file'; readonly input: EditFileInput }
  | { readonly name: 'run_command'; readonly input: RunCommandInput };

/** The checked call, or a message for the model naming the tool, the parameter and the fix. */
export type ValidationResult =
  { readonly ok: true; readonly call: ValidatedToolCall } | { readonly ok: false; readonly error: string };

/** What each parameter must be, in words (used in error messages). */
type FieldWords = Readonly<Record<string, string>>;

const PATH = 'a non-empty string';
/** A tool whose input this module checks. */
type CheckedTool = ValidatedToolCall['name'] | typeof RECALL_TOOL_NAME;

const WORDS: Readonly<Record<CheckedTool, FieldWords>> = {
  read_file: {
    path: PATH,
    offset: 'an integer ≥ 1',
    limit: `an integer from 1 to ${formatCount(MAX_READ_LIMIT)}`,
    column: 'an integer ≥ 1',
  },
  list_files: { path: PATH, glob: 'a non-empty glob string' },
  search: {
    pattern: 'a non-empty string',
    path: PATH,
    glob: 'a non-empty glob string',
    literal: 'true or false',
    case_sensitive: 'true or false',
    max_results: `an integer from 1 to ${formatCount(L.searchMaxMatches)}`,
  },
  edit_file: {
    path: PATH,
    old_string: 'a string ("" to create a file)',
    new_string: 'a string',
    replace_all: 'true or false',
  },
  run_command: {
    command: 'a non-empty string',
    cwd: PATH,
    timeout_ms: `an integer from 1,000 to ${formatCount(L.commandMaxTimeoutMs)} (milliseconds)`,
  },
  recall: {
    query: 'a non-empty string',
    id: 'a non-empty string',
    turn: 'an integer ≥ 1',
    compaction: 'a non-empty compaction id',
    offset: 'an integer ≥ 1',
    limit: `an integer from 1 to ${formatCount(MAX_READ_LIMIT)}`,
  },
};

/**
 * Checks `input` for the tool `name`. Unknown tools, non-object inputs, unknown or missing
 * parameters and wrongly typed values each give a specific message; `null` counts as absent.
 * Never throws.
 */
export function validateToolInput(name: string, input: unknown): ValidationResult {
  switch (name) {
    case TOOL_NAMES.readFile:
      return check(TOOL_NAMES.readFile, ReadFileSchema, input, (value) => ({
        name: TOOL_NAMES.readFile,
        input: value,
      }));
    case TOOL_NAMES.listFiles:
      return check(TOOL_NAMES.listFiles, ListFilesSchema, input, (value) => ({
        name: TOOL_NAMES.listFiles,
        input: value,
      }));
    case TOOL_NAMES.search:
      return check(TOOL_NAMES.search, SearchSchema, input, (value) => ({ name: TOOL_NAMES.search, input: value }));
    case TOOL_NAMES.editFile:
      return check(TOOL_NAMES.editFile, EditFileSchema, input, (value) => ({
        name: TOOL_NAMES.editFile,
        input: value,
      }));
    case TOOL_NAMES.runCommand:
      return check(TOOL_NAMES.runCommand, RunCommandSchema, input, (value) => ({
        name: TOOL_NAMES.runCommand,
        input: value,
      }));
    default:
      return {
        ok: false,
        error: `Unknown tool "${name}". The workspace tools are: ${Object.values(TOOL_NAMES).join(', ')}.`,
      };
  }
}

/**
 * Checks the input of a recall call with the same rules and messages as the workspace tools
 * (unknown or mistyped parameters); the call's own rule — exactly one of query, id and
 * turn — is the recall tool's. Never throws.
 */
export function validateRecallInput(
  input: unknown,
): { readonly ok: true; readonly input: RecallInput } | { readonly ok: false; readonly error: string } {
  const r = check(RECALL_TOOL_NAME, RecallSchema, input, (value) => value);
  return r.ok ? { ok: true, input: r.call } : r;
}

type ObjectSchema = v.StrictObjectSchema<v.ObjectEntries, undefined>;

function check<S extends ObjectSchema, R>(
  tool: CheckedTool,
  schema: S,
  input: unknown,
  wrap: (value: v.InferOutput<S>) => R,
): { readonly ok: true; readonly call: R } | { readonly ok: false; readonly error: string } {
  const words = WORDS[tool];
  const accepted = Object.keys(schema.entries)
    .map((k) => (isRequired(schema, k) ? `${k} (required)` : k))
    .join(', ');
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      ok: false,
      error: `${tool}: the input must be a JSON object with the parameters ${accepted} (got ${preview(input)}).`,
    };
  }
  const record = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null));
  for (const key of Object.keys(record)) {
    if (!(key in schema.entries)) {
      const near = Object.keys(schema.entries).find(
        (k) => key.toLowerCase().includes(k) || k.includes(key.toLowerCase()),
      );
      return {
        ok: false,
        error: `${tool}: unknown parameter "${key}"${near ? ` (did you mean "${near}"?)` : ''}. Accepted parameters: ${accepted}.`,
      };
    }
  }
  for (const [key, entry] of Object.entries(schema.entries)) {
    const value = record[key];
    if (value === undefined) {
      if (isRequired(schema, key))
        return { ok: false, error: `${tool}: "${key}" is required (${words[key] ?? 'see the tool description'}).` };
      continue;
    }
    if (!v.safeParse(entry, value).success) {
      return {
        ok: false,
        error: `${tool}: "${key}" must be ${words[key] ?? 'as the tool description says'} (got ${preview(value)}).`,
      };
    }
  }
  const parsed = v.safeParse(schema, record);
  if (!parsed.success) return { ok: false, error: `${tool}: ${parsed.issues[0]?.message ?? 'invalid input'}.` };
  return { ok: true, call: wrap(parsed.output) };
}

function isRequired(schema: ObjectSchema, key: string): boolean {
  const entry = schema.entries[key];
  return entry !== undefined && entry.type !== 'optional';
}

function preview(value: unknown): string {
  const json = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  return json.length > 60 ? `${headChars(json, 57)}…` : json;
}
