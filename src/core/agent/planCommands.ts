/**
 * The session's plan changes here and only here: update_plan's call (planTool.ts) and the
 * user's Clear. Saved first (`SessionSink.plan`), then the state's `plan` changes and
 * `plan_changed` goes to the views.
 */
import type { Plan } from '../plan/plan';
import type { SendResult, SessionCore } from './sessionCore';
import { errorText } from '../platform/errors';

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
  const { plan: _old, ...rest } = core.state;
  core.state = plan ? { ...rest, plan } : rest;
  core.emit(plan ? { type: 'plan_changed', plan } : { type: 'plan_changed' });
}

/**
 * The user's Clear of the plan: allowed at any time (a running turn keeps going; its next
 * update_plan makes a new plan). Nothing to clear is not an error. A failed save is the reason.
 */
export async function clearPlan(core: SessionCore): Promise<SendResult> {
  if (!core.state.plan) return { ok: true };
  try {
    await setPlan(core, undefined);
    return { ok: true };
  } catch (err) {
    return {
      ok: false,
      reason: `The plan could not be cleared: the session file could not be written (${errorText(err)}).`,
    };
  }
}
