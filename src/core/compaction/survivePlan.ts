/**
 * The plan's part of what survives a compaction: the agent's current plan (core/plan/plan.ts)
 * as one `<system-reminder>` block, unless the kept history still shows it verbatim (the
 * newest update_plan call or plan reminder left standing holds this very plan). The survive
 * step (reattachRun.ts) puts it into the compaction's lead message beside the re-attached
 * files, so it is counted, recorded (`carriedPlan`) and undone by Restore with them. Pure.
 */
import type { Message, Plan } from '../conversation/conversationModel';
import { checkPlanSteps, isPlanReminder, planProgress, planReminderText, samePlan } from '../plan/plan';
import { UPDATE_PLAN } from '../plan/planSpec';
import type { CarriedPlan } from './types';

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
