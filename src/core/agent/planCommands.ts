/**
 * The session's plan changes here and only here: update_plan's call (planTool.ts) and the
 * user's Clear. Saved first (`SessionSink.plan`), then the state's `plan` changes and
 * `plan_changed` goes to the views.
 */
import { samePlan } from '../plan/plan';
import type { SendResult, SessionCore } from './sessionCore';
import { errorText } from '../text/errors';
import type { Injection, Plan } from '../conversation/conversationModel';

/**
 * Makes `plan` the session's plan (undefined: none), saved first: rejects, changing nothing,
 * when the sink cannot save it. `toolUseId`: the update_plan call that made it.
 */
export async function setPlan(core: SessionCore, plan: Plan | undefined, toolUseId?: string): Promise<void> {
  await core.deps.sink.plan?.({
    at: core.deps.clock.now(),
    ...(plan ? { plan } : {}),
    ...(toolUseId !== undefined ? { toolUseId } : {}),
  });
  core.recordPlanChange({
    at: core.deps.clock.now(),
    ...(plan ? { plan } : {}),
    ...(toolUseId !== undefined ? { toolUseId } : {}),
  });
  core.emit(plan ? { type: 'plan_changed', plan } : { type: 'plan_changed' });
}

/** What Claude is told, with the user's next message, after the user cleared the plan. */
export const PLAN_CLEARED_REMINDER =
  'The user cleared your plan (update_plan). Do not follow it any longer; make a new plan with update_plan if the task still needs one.';

/**
 * The user's Clear of the plan: allowed at any time (a running turn keeps going; its next
 * update_plan makes a new plan). Claude is told with the user's next message
 * (`core.planClearedUnsaid`, see `planClearedInjections`). Nothing to clear is not an error.
 * A failed save is the reason.
 */
export async function clearPlan(core: SessionCore): Promise<SendResult> {
  if (!core.state.plan) return { ok: true };
  try {
    await setPlan(core, undefined);
    core.markPlanClearUnsaid();
    return { ok: true };
  } catch (err) {
    return {
      ok: false,
      reason: `The plan could not be cleared: the session file could not be written (${errorText(err)}).`,
    };
  }
}

/**
 * The reminder that goes with the user's next message when the user cleared the plan and
 * Claude was not told yet (none when it made a new plan since: that plan is what it follows).
 */
export function planClearedInjections(core: SessionCore): Injection[] {
  return core.planClearedUnsaid && !core.state.plan ? [{ kind: 'system_reminder', text: PLAN_CLEARED_REMINDER }] : [];
}

/**
 * After a rewind or its restore changed the conversation: makes `plan` the session's plan when
 * it differs (saved first, as any change). A save that fails is a warning; the conversation
 * change stands (the plan is only the session's note of the task).
 */
export async function followPlan(core: SessionCore, plan: Plan | undefined, why: string): Promise<void> {
  if (samePlan(plan, core.state.plan)) return;
  try {
    await setPlan(core, plan);
    core.emit({
      type: 'notice',
      level: 'info',
      text: plan ? `The plan is back as it was ${why}.` : `The plan is cleared, as it was ${why}.`,
    });
  } catch (err) {
    core.emit({
      type: 'notice',
      level: 'warning',
      text: `The plan could not be put back as it was ${why}: the session file could not be written (${errorText(err)}).`,
    });
  }
}
