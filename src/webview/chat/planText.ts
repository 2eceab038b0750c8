/** The checklist's words (pure): its count and each step's status in words, for the title and screen readers. */
import type { PlanStepView } from '../../protocol/plan';

/** `3 of 7 done`. */
export function planCount(steps: readonly PlanStepView[]): string {
  return `${steps.filter((s) => s.status === 'completed').length} of ${steps.length} done`;
}

/** The step in progress, if any. */
export function stepInProgress(steps: readonly PlanStepView[]): PlanStepView | undefined {
  return steps.find((s) => s.status === 'in_progress');
}

/** A step's status as a screen reader says it. */
export function statusWords(status: PlanStepView['status']): string {
  return status === 'completed' ? 'done' : status === 'in_progress' ? 'in progress' : 'to do';
}
