/**
 * update_plan bound to a session: the session's plan is replaced by the call's, saved first
 * (a plan that cannot be saved is not taken, and the model is told). The session adds it to
 * its tools with `withSessionTools`. Pure but for the ports.
 */
import { bindTool, type ToolDefinition } from '../tools/toolDefinition';
import { planResultText } from './plan';
import type { Plan } from '../conversation/conversationModel';
import { UPDATE_PLAN_SPEC } from './planSpec';

/** How the session takes a new plan. */
export interface PlanRouting {
  /**
   * Saves `plan` (made by the call `toolUseId`) and makes it the session's; rejects when it
   * cannot be saved, leaving the session's plan as it was.
   */
  readonly adopt: (plan: Plan, toolUseId: string) => Promise<void>;
}

/**
 * update_plan bound to a session (`routing`). Its execution never throws: a failed save is an
 * error result saying the plan was not kept.
 */
export function planDefinition(routing: PlanRouting): ToolDefinition<Plan> {
  return bindTool(UPDATE_PLAN_SPEC, async (plan, ctx) => {
    try {
      await routing.adopt(plan, ctx.toolUseId);
    } catch (e) {
      return {
        content: `update_plan: the plan could not be saved (${e instanceof Error ? e.message : String(e)}), so it was not updated. Try again later.`,
        isError: true,
      };
    }
    return { content: planResultText(plan), isError: false };
  });
}
