/**
 * The main argument of an MCP tool call, for approval cards, risk flags and the ledger: the
 * first string among the well-known argument names, else the first string property the
 * schema lists, else the first string in the input. Pure.
 */

/** Argument names that usually hold what a call acts on, most telling first. */
export const TARGET_KEYS: readonly string[] = [
  'path',
  'file_path',
  'filePath',
  'file',
  'filename',
  'uri',
  'url',
  'query',
  'command',
  'pattern',
  'name',
];

/** The main string argument of `input` under a schema with `properties`; undefined when none. */
export function mcpCallTarget(input: unknown, schemaProperties: unknown): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const args = input as Record<string, unknown>;
  const pick = (k: string) => (typeof args[k] === 'string' && args[k] !== '' ? (args[k] as string) : undefined);
  for (const k of TARGET_KEYS) if (pick(k) !== undefined) return pick(k);
  if (typeof schemaProperties === 'object' && schemaProperties !== null)
    for (const k of Object.keys(schemaProperties)) if (pick(k) !== undefined) return pick(k);
  for (const k of Object.keys(args)) if (pick(k) !== undefined) return pick(k);
  return undefined;
}
