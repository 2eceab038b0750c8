/**
 * The one line a tool call's collapsed row in the chat shows: what the tool does to what —
 * `Read src/auth.ts`, `Search "exp" in src/`, `Edit src/auth.ts +2 −2`, `Run npm test`, an MCP
 * tool as `echo · everything "hello"`. Built from the tool's definition (its effect, `target`,
 * `scope` and `lines`), never from its name; a call to a tool without a definition (an old
 * session's foreign tool, a server no longer running) is named with its most telling input.
 * One line, clipped. Pure.
 */
import { describeToolCall } from './toolKinds';
import { mcpCallTarget } from './mcpTarget';
import { headChars } from '../platform/text';
import type { AnyToolDefinition } from './toolDefinition';
import type { ToolEffect } from '../conversation/conversationModel';

/** Finds a tool's definition by the name the model called it with (the host's registry). */
export type ToolLookup = (name: string) => AnyToolDefinition | undefined;

/** Characters of a call's target (a path, a pattern, a command) a summary shows at most. */
export const SUMMARY_TARGET_CHARS = 80;
/** Characters of a whole summary at most. */
export const SUMMARY_CHARS = 160;

/** The verb of each effect a built-in or session tool declares; `external` tools are named instead. */
const VERBS: Readonly<Record<Exclude<ToolEffect, 'external'>, string>> = {
  read: 'Read',
  list: 'List',
  search: 'Search',
  edit: 'Edit',
  run: 'Run',
  recall: 'Recall',
  plan: 'Plan:',
  delegate: 'Subagent:',
};

/** Effects whose target is words (a pattern, a query, an argument) rather than a path or a command: quoted. */
const QUOTED: ReadonlySet<ToolEffect> = new Set(['search', 'recall', 'external']);

/**
 * The summary of a call to `name` with `input`. `definition`: the tool's, when the host still
 * has it; the input must pass its check for its target to be trusted, else the call is named
 * like a foreign one.
 */
export function callSummary(definition: AnyToolDefinition | undefined, name: string, input: unknown): string {
  const checked = definition?.validate(input);
  if (!definition || !checked?.ok) return foreignSummary(name, input);
  const value: unknown = checked.input;
  const effect = definition.effect;
  const target = shown(definition.target(value));
  const head = effect === 'external' ? externalName(definition) : VERBS[effect];
  const what =
    target === undefined
      ? effect === 'list'
        ? ' the workspace'
        : ''
      : QUOTED.has(effect)
        ? ` "${target}"`
        : ` ${target}`;
  const scope = shown(definition.scope?.(value));
  const lines = definition.lines?.(value);
  const counts = lines ? ` +${lines.added} −${lines.removed}` : '';
  return clip(`${head}${what}${scope ? ` in ${scope}` : ''}${counts}`, SUMMARY_CHARS);
}

/** An external tool's name: an MCP tool's own name and its server, else the name the model calls. */
function externalName(d: AnyToolDefinition): string {
  return d.origin.kind === 'mcp' ? `${d.origin.tool} · ${d.origin.server}` : d.schema.name;
}

/**
 * A call to a tool the host does not define: an MCP-style name (`mcp__server__tool`) as its
 * tool and server with its main argument, anything else as its name and most telling input
 * (describeToolCall: a path, a command, a pattern, a query …).
 */
function foreignSummary(name: string, input: unknown): string {
  const mcp = /^mcp__(.+?)__(.+)$/s.exec(name);
  if (mcp) {
    const target = shown(mcpCallTarget(input, undefined));
    return clip(oneLine(`${mcp[2]} · ${mcp[1]}${target === undefined ? '' : ` "${target}"`}`), SUMMARY_CHARS);
  }
  return clip(oneLine(describeToolCall({ name, input })), SUMMARY_CHARS);
}

/** A target as a summary shows it: on one line, clipped; undefined when there is nothing to show. */
function shown(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const line = oneLine(text);
  return line === '' ? undefined : clip(line, SUMMARY_TARGET_CHARS);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${headChars(text, max - 1).trimEnd()}…`;
}
