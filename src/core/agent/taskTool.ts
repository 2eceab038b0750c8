/**
 * task bound to a session: each call runs a subagent (subagentRun.ts) through the session's
 * launcher, shows its figures live on the call's card, and hands its record to the session
 * (saved to the parent's file: the bill). Recursion is refused here too: a call made from a
 * subagent's own context never reaches a launcher (childTools.ts answers it).
 */
import { bindTool, type ToolDefinition } from '../tools/toolDefinition';
import type { Clock } from '../platform/platformPorts';
import { runSubagent } from './subagentRun';
import type { SubagentLauncher } from './subagentPort';
import type { SubagentFigures, SubagentRecord } from '../subagents/subagentRecord';
import { TASK, TASK_SPEC, type TaskInput } from '../subagents/taskSpec';

/** How the session takes what its subagents report. */
export interface TaskRouting {
  readonly launcher: SubagentLauncher;
  readonly clock: Clock;
  /** A subagent's figures changed (the card of call `toolUseId`). */
  readonly progress: (toolUseId: string, figures: SubagentFigures) => void;
  /** A subagent ended: its record goes to the parent's session. Never rejects. */
  readonly finished: (record: SubagentRecord) => Promise<void>;
}

/** task bound to a session (`routing`); its execution never throws. */
export function taskDefinition(routing: TaskRouting): ToolDefinition<TaskInput> {
  return {
    ...bindTool(TASK_SPEC, async (input, ctx) => {
      if (!routing.launcher.settings().enabled)
        return {
          content: `${TASK}: subagents are turned off (contextPipeline.subagents.enabled). Do the work yourself.`,
          isError: true,
        };
      const outcome = await runSubagent(
        routing.launcher,
        { toolUseId: ctx.toolUseId, description: input.description, prompt: input.prompt },
        ctx.signal,
        (figures) => routing.progress(ctx.toolUseId, figures),
        routing.clock,
      );
      if (outcome.record) await routing.finished(outcome.record);
      return outcome.execution;
    }),
    offered: () => routing.launcher.settings().enabled,
  };
}
