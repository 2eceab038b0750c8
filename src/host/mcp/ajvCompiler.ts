/**
 * The SchemaCompiler (core/mcp/mcpToolSchema.ts) over ajv, the JSON Schema validator the MCP
 * SDK itself uses: a server's input schema is compiled once, each call checked against it, and
 * the first failure said in one sentence the model can act on. No `vscode`.
 */
import Ajv, { type ErrorObject } from 'ajv';
import type { SchemaCompiler } from '../../core/mcp/mcpToolSchema';

/** One ajv instance: lenient about unknown keywords and formats (servers use many dialects). */
const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });

/** A JSON pointer (`/a/0/b`) as the parameter the model wrote: `a[0].b`. */
function parameter(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`))
    .join('');
}

/** One sentence for an ajv error. */
export function errorSentence(e: ErrorObject): string {
  const at = parameter(e.instancePath);
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'required') {
    const missing = String(params.missingProperty);
    return `"${at ? `${at}.${missing}` : missing}" is required.`;
  }
  if (e.keyword === 'additionalProperties')
    return `"${String(params.additionalProperty)}" is not a parameter${at ? ` of "${at}"` : ''}; remove it.`;
  return `${at ? `"${at}"` : 'the input'} ${e.message ?? 'is invalid'}.`;
}

/** Compiles with ajv; a schema ajv refuses is `{ ok: false }` with its reason. */
export const ajvCompiler: SchemaCompiler = (schema) => {
  let validate: ReturnType<typeof ajv.compile>;
  try {
    // Compiled without its `$schema` (draft-07 / 2020-12 URIs ajv would look up) and `$id` (no global registry clash).
    const { $schema: _s, $id: _i, ...rest } = schema as Record<string, unknown>;
    validate = ajv.compile(rest);
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  return {
    ok: true,
    validate: (input) => {
      if (validate(input)) return undefined;
      const first = validate.errors?.[0];
      return first ? errorSentence(first) : 'the input does not match the schema.';
    },
  };
};
