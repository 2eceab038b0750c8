/**
 * The plan's messages between the host and the chat webview: the checklist the webview shows
 * (`plan`) and the user's Clear (`clearPlan`). The host sends a plan the core checked
 * (core/plan/plan.ts); these bounds only keep a malformed message out.
 */
import * as v from 'valibot';

/** The most steps a `plan` message may carry (the core allows fewer). */
export const MAX_PLAN_STEPS_SHOWN = 100;
const Words = v.pipe(v.string(), v.maxLength(2000));

/** One step of the checklist: its words, where it stands, an optional note. */
export const PlanStepSchema = v.strictObject({
  step: Words,
  status: v.picklist(['pending', 'in_progress', 'completed']),
  note: v.optional(Words),
});

/** One step of the checklist. */
export type PlanStepView = v.InferOutput<typeof PlanStepSchema>;

/**
 * host → webview: the agent's plan as it stands now, with its progress in words (`2 of 3
 * done`, the core's `progressWords`); without `steps`, there is none (cleared).
 */
export const PlanSchema = v.strictObject({
  type: v.literal('plan'),
  steps: v.optional(v.pipe(v.array(PlanStepSchema), v.minLength(1), v.maxLength(MAX_PLAN_STEPS_SHOWN))),
  progress: v.optional(v.pipe(v.string(), v.maxLength(200))),
});

/** webview → host: the user cleared the plan. */
export const ClearPlanSchema = v.strictObject({ type: v.literal('clearPlan') });
