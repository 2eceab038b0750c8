/**
 * JSON with comments and trailing commas (VS Code's `.vscode/mcp.json`, and a tolerant read of
 * `.mcp.json`), through Microsoft's `jsonc-parser`. Pure; errors as values.
 */
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

/** The parsed value, or the first syntax error with its line and column (1-based). */
export type JsoncResult =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/** Parses `text` as JSONC: comments and trailing commas allowed; any other syntax error is refused. */
export function parseJsonc(text: string): JsoncResult {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first === undefined) return { ok: true, value };
  const before = text.slice(0, first.offset);
  const line = before.split('\n').length;
  const column = first.offset - before.lastIndexOf('\n');
  return { ok: false, error: `${printParseErrorCode(first.error)} at line ${line}, column ${column}` };
}
