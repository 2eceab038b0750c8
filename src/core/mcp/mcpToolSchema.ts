/**
 * An MCP tool's `inputSchema`, checked before the tool is offered: it must be a JSON Schema
 * object with `type: "object"` (the API's rule for `input_schema`), `properties` an object of
 * schemas and `required` a list of names. Compiling it fully (and validating calls) is the
 * host's job through {@link SchemaCompiler} (ajv), so the core stays free of it. Pure.
 */
import type { ToolSchema } from '../conversation/conversationModel';

/** The schema as the API takes it, or why the tool is refused. */
export type InputSchemaCheck =
  { readonly ok: true; readonly schema: ToolSchema['inputSchema'] } | { readonly ok: false; readonly reason: string };

/** Checks a validator result: undefined when the input is valid, else one sentence naming the parameter and what it must be. */
export type InputValidator = (input: unknown) => string | undefined;

/** Compiles a JSON Schema into a validator, or says why it is not a valid schema. Never throws. */
export type SchemaCompiler = (
  schema: ToolSchema['inputSchema'],
) => { readonly ok: true; readonly validate: InputValidator } | { readonly ok: false; readonly error: string };

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** The structural check of an MCP tool's `inputSchema` (see the file comment). */
export function checkInputSchema(raw: unknown): InputSchemaCheck {
  if (!isRecord(raw)) return { ok: false, reason: 'its input schema is not a JSON object' };
  if (raw.type !== 'object') return { ok: false, reason: 'its input schema does not have type "object"' };
  const props = raw.properties;
  if (props !== undefined) {
    if (!isRecord(props)) return { ok: false, reason: 'its input schema\'s "properties" is not an object' };
    for (const [k, p] of Object.entries(props))
      if (!isRecord(p) && typeof p !== 'boolean')
        return { ok: false, reason: `its input schema's property "${k}" is not a schema` };
  }
  const req = raw.required;
  if (req !== undefined && (!Array.isArray(req) || req.some((r) => typeof r !== 'string')))
    return { ok: false, reason: 'its input schema\'s "required" is not a list of names' };
  return { ok: true, schema: raw as ToolSchema['inputSchema'] };
}
