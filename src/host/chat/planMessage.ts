/** The chat's checklist message for the agent's plan (src/protocol/plan.ts). */
import { planProgress, progressWords } from '../../core/plan/plan';
import type { Plan } from '../../core/conversation/conversationModel';
import type { ChatToWebview } from '../../protocol/chat';

/** `{ type: 'plan' }` with the plan's steps and progress words, or without steps when there is no plan (cleared). */
export function planMessage(plan: Plan | undefined): ChatToWebview {
  return plan
    ? { type: 'plan', steps: plan.steps.map((s) => ({ ...s })), progress: progressWords(planProgress(plan)) }
    : { type: 'plan' };
}
