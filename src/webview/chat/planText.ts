/** The checklist's words (pure): the step in progress and each step's status in words, for screen readers. */
import type { PlanStepView } from '../../protocol/plan';

/** The step in progress, if any. */
export function stepInProgress(steps: readonly PlanStepView[]): PlanStepView | undefined {
  return steps.find((s) => s.status === 'in_progress');
}

/** A step's status as a screen reader says it. */
export function statusWords(status: PlanStepView['status']): string {
  return status === 'completed' ? 'done' : status === 'in_progress' ? 'in progress' : 'to do';
}
