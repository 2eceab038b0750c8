/**
 * The plan's part of what survives a compaction: the agent's current plan (core/plan/plan.ts)
 * as one `<system-reminder>` block, unless the kept history still shows it verbatim (the
 * newest update_plan call or plan reminder left standing holds this very plan). The survive
 * step (reattachRun.ts) puts it into the compaction's lead message beside the re-attached
 * files, so it is counted, recorded (`carriedPlan`) and undone by Restore with them. Pure.
 */
import type { Block, Message, Plan } from '../conversation/conversationModel';
import { checkPlanSteps, planLines, planProgress, progressWords, samePlan } from '../plan/plan';
import { UPDATE_PLAN } from '../plan/planSpec';
import { toWellFormed } from '../platform/text';
import type { CarriedPlan } from './types';

/** The line the plan reminder starts with (after its tag). */
export const PLAN_HEADING = 'Your plan, carried over the context compaction (update_plan)';

/** The plan reminder's text for `plan`. */
export function planReminderText(plan: Plan): string {
  const p = planProgress(plan);
  return toWellFormed(
    `<system-reminder>\n${PLAN_HEADING}: ${progressWords(p)}. This is the current plan; keep it up to date with update_plan as you work ([x] completed, [>] in progress, [ ] pending).\n${planLines(plan)}\n</system-reminder>`,
  );
}

/** Whether a block is a compaction's plan reminder. */
export function isPlanReminder(b: Block): boolean {
  return b.type === 'text' && b.meta.source === 'reminder' && b.text.startsWith(`<system-reminder>\n${PLAN_HEADING}`);
}

/**
 * Whether `messages` still show `plan` verbatim: the newest plan they hold — an update_plan
 * call the tool took (its input passes the plan's check and its result is not an error), or a
 * plan reminder — is this plan.
 */
export function planStandsIn(messages: readonly Message[], plan: Plan): boolean {
  const failed = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const blocks = messages[i]?.blocks ?? [];
    for (let j = blocks.length - 1; j >= 0; j--) {
      const b = blocks[j];
      if (!b) continue;
      if (b.type === 'tool_result' && b.isError) failed.add(b.toolUseId);
      if (isPlanReminder(b) && b.type === 'text') return b.text === planReminderText(plan);
      if (b.type === 'tool_use' && b.name === UPDATE_PLAN && !failed.has(b.id)) {
        const input = b.input as { steps?: unknown } | undefined;
        const checked = checkPlanSteps(input?.steps);
        if (checked.ok) return samePlan(checked.plan, plan);
      }
    }
  }
  return false;
}

/** The plan's survive part: its reminder block and what the record lists. */
export interface PlanPart {
  readonly text: string;
  readonly carried: CarriedPlan;
}

/**
 * The plan's part after a compaction leaving `kept`: undefined when there is no plan or `kept`
 * still shows it verbatim ({@link planStandsIn}). `textTokens` counts the reminder.
 */
export function planPart(
  plan: Plan | undefined,
  kept: readonly Message[],
  textTokens: (text: string) => number,
): PlanPart | undefined {
  if (!plan || planStandsIn(kept, plan)) return undefined;
  const text = planReminderText(plan);
  const p = planProgress(plan);
  return { text, carried: { steps: p.total, completed: p.completed, tokens: textTokens(text) } };
}
