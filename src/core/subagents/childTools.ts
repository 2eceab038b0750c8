/**
 * What a subagent may use: the read-only tools by default (read_file, list_files, search,
 * recall, and MCP tools their server marks read-only), edits and commands only when the user
 * allowed them (`contextPipeline.subagents.allowEdits`; each still asks for approval). Never
 * `task` (depth limit 1) nor `update_plan` (the plan is the parent's). Pure.
 */
import type { ToolRunner } from '../tools/toolRunner';
import type { ToolSchema, ToolEffect } from '../conversation/conversationModel';
import type { AnyToolDefinition } from '../tools/toolDefinition';
import { TASK } from './taskSpec';

/** Effects a subagent always gets. */
const READ_ONLY: ReadonlySet<ToolEffect> = new Set(['read', 'list', 'search', 'recall']);
/** Effects a subagent gets when the user allowed edits. */
const SIDE_EFFECTS: ReadonlySet<ToolEffect> = new Set(['edit', 'run']);

/** Whether a subagent may call the tool `definition`. */
export function subagentMayUse(definition: AnyToolDefinition, allowEdits: boolean): boolean {
  if (definition.schema.name === TASK || definition.effect === 'delegate' || definition.effect === 'plan') return false;
  if (READ_ONLY.has(definition.effect)) return true;
  if (definition.origin.kind === 'mcp') return definition.readOnly || allowEdits;
  return allowEdits && SIDE_EFFECTS.has(definition.effect);
}

/** The schemas of the tools offered that a subagent gets, in their order. */
export function subagentToolSchemas(
  offered: readonly ToolSchema[],
  definition: (name: string) => AnyToolDefinition | undefined,
  allowEdits: boolean,
): ToolSchema[] {
  return offered.filter((s) => {
    const d = definition(s.name);
    return d !== undefined && subagentMayUse(d, allowEdits);
  });
}

/** The error result of a subagent's call to `task`. */
export const NESTED_TASK_REFUSED = `${TASK}: a subagent cannot start subagents (the depth limit is 1). Do this part yourself with the tools you have, or say in your report what is left.`;

/**
 * `inner` limited to the tools named in `allowed()` (read per call): `task` is refused with
 * the depth limit, any other tool not allowed with its reason. Never throws.
 */
export function subagentToolRunner(inner: ToolRunner, allowed: () => ReadonlySet<string>): ToolRunner {
  return {
    run: async (call, signal, onState) => {
      if (call.name === TASK) return { content: NESTED_TASK_REFUSED, isError: true, durationMs: 0 };
      if (!allowed().has(call.name))
        return {
          content: `${call.name}: not available to a subagent (its tools: ${[...allowed()].join(', ')}). Say in your report what is left to do.`,
          isError: true,
          durationMs: 0,
        };
      return inner.run(call, signal, onState);
    },
  };
}
