/**
 * The runtime check every built-in tool's input goes through: the model's JSON is untrusted,
 * so each call is checked against the shape its schema advertises, and a failure becomes one
 * sentence the model can act on, e.g. `read_file: "path" is required (a non-empty string)`.
 */
import * as v from 'valibot';
import { headChars } from '../platform/text';
import type { InputCheck } from './toolDefinition';

/** A tool's input shape: a strict valibot object (unknown keys are refused). */
export type InputShape = v.StrictObjectSchema<v.ObjectEntries, undefined>;

/** What each parameter must be, in words (used in error messages). */
export type FieldWords = Readonly<Record<string, string>>;

/** A non-empty string. */
export const NonEmpty = v.pipe(v.string(), v.minLength(1));

/** A string that is not blank once trimmed (trimmed on the way in). */
export const NonBlank = v.pipe(v.string(), v.trim(), v.minLength(1));

/** An integer in [min, max]. */
export const Int = (min: number, max: number) => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));

/** Most lines one read may ask for (read_file, recall). */
export const MAX_READ_LIMIT = 1_000_000;

/** The words for a path parameter. */
export const PATH_WORDS = 'a non-empty string';

/**
 * Checks `input` for the tool `tool` against `shape`. Non-object inputs, unknown or missing
 * parameters and wrongly typed values each give a specific message naming the parameter and
 * what it must be (from `words`); `null` counts as absent. Never throws.
 */
export function checkInput<S extends InputShape>(
  tool: string,
  shape: S,
  words: FieldWords,
  input: unknown,
): InputCheck<v.InferOutput<S>> {
  const accepted = Object.keys(shape.entries)
    .map((k) => (isRequired(shape, k) ? `${k} (required)` : k))
    .join(', ');
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      ok: false,
      error: `${tool}: the input must be a JSON object with the parameters ${accepted} (got ${preview(input)}).`,
    };
  }
  const record = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null));
  for (const key of Object.keys(record)) {
    if (!(key in shape.entries)) {
      const near = Object.keys(shape.entries).find(
        (k) => key.toLowerCase().includes(k) || k.includes(key.toLowerCase()),
      );
      return {
        ok: false,
        error: `${tool}: unknown parameter "${key}"${near ? ` (did you mean "${near}"?)` : ''}. Accepted parameters: ${accepted}.`,
      };
    }
  }
  for (const [key, entry] of Object.entries(shape.entries)) {
    const value = record[key];
    if (value === undefined) {
      if (isRequired(shape, key))
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
  const parsed = v.safeParse(shape, record);
  if (!parsed.success) return { ok: false, error: `${tool}: ${parsed.issues[0]?.message ?? 'invalid input'}.` };
  return { ok: true, input: parsed.output };
}

function isRequired(shape: InputShape, key: string): boolean {
  const entry = shape.entries[key];
  return entry !== undefined && entry.type !== 'optional';
}

function preview(value: unknown): string {
  const json = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  return json.length > 60 ? `${headChars(json, 57)}…` : json;
}
