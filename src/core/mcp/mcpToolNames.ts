/**
 * The names the model sees for MCP tools: `mcp__<server>__<tool>`, fitted to the Messages API's
 * rule for a custom tool's name, `^[a-zA-Z0-9_-]{1,64}$` ("name: … Must match the regex
 * ^[a-zA-Z0-9_-]{1,64}$", Anthropic docs, Tool use → "Specifying client tools"; the SDK's
 * `Tool.name` in @anthropic-ai/sdk resources/messages/messages.d.ts carries no pattern, so the
 * documented one, the narrower of those published, is used). Pure.
 */
import { shortHash } from './shortHash';

/** The API's rule for a tool name. */
export const TOOL_NAME_RULE = /^[a-zA-Z0-9_-]{1,64}$/;
/** Longest tool name the API accepts. */
export const MAX_TOOL_NAME_LENGTH = 64;
/** Prefix of every MCP tool's name. */
export const MCP_TOOL_PREFIX = 'mcp__';

/** `text` with every character the rule refuses replaced by `_` (empty → `_`). */
export function sanitizeNamePart(text: string): string {
  const out = text.replace(/[^a-zA-Z0-9_-]/g, '_');
  return out === '' ? '_' : out;
}

/**
 * The model's name for `tool` of `server`: `mcp__<server>__<tool>` with characters outside
 * `[a-zA-Z0-9_-]` as `_`; when longer than 64, cut and ended by `_` and 8 hex digits of a hash
 * of the original pair, so two long names that share their head stay apart.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `${MCP_TOOL_PREFIX}${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
  const suffix = `_${shortHash(`${server}\u0000${tool}`)}`;
  return full.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length) + suffix;
}

/** Two of a server's tools whose model names are the same. */
export interface NameCollision {
  readonly name: string;
  readonly tools: readonly [string, string];
}

/** The first pair of `tools` that map to the same model name under `server`, if any. */
export function findNameCollision(server: string, tools: readonly string[]): NameCollision | undefined {
  const seen = new Map<string, string>();
  for (const tool of tools) {
    const name = mcpToolName(server, tool);
    const other = seen.get(name);
    if (other !== undefined) return { name, tools: [other, tool] };
    seen.set(name, tool);
  }
  return undefined;
}
