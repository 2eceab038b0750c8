/**
 * update_plan: the agent keeps its plan for a multi-step task. The contract (schema, input
 * check, effect); the session binds its execution (planTool.ts), since the plan is session
 * state. Pure.
 */
import type { ToolSpec } from '../tools/toolDefinition';
import {
  checkPlanSteps,
  PLAN_MAX_NOTE_CHARS,
  PLAN_MAX_STEP_CHARS,
  PLAN_MAX_STEPS,
  planProgress,
  progressWords,
} from './plan';
import type { Plan } from '../conversation/conversationModel';

/** The tool's name. */
export const UPDATE_PLAN = 'update_plan';

/** update_plan's schema, input check and effect: no approval (it changes only the session's plan). */
export const UPDATE_PLAN_SPEC: ToolSpec<Plan> = {
  schema: {
    name: UPDATE_PLAN,
    description: [
      'Keep a plan for a task of several steps: the user sees it as a checklist beside the chat, and it survives context compaction.',
      'Use it when a task needs three or more distinct steps or the user gives several things to do; skip it for a single quick step or a question.',
      'Send the whole list every time (it replaces the previous one), with each step\'s status: "pending", "in_progress" or "completed".',
      'Keep it current: mark a step in_progress before you start it and completed as soon as it is done, add or drop steps when the task changes.',
      'At most one step is in_progress at a time.',
      'The result only confirms the update; it does not repeat the plan.',
    ].join(' '),
    inputSchema: {
      type: 'object',
      properties: {
        steps: {
          type: 'array',
          description: `The whole plan, in order (1 to ${PLAN_MAX_STEPS} steps).`,
          items: {
            type: 'object',
            properties: {
              step: {
                type: 'string',
                description: `What to do, one short line (at most ${PLAN_MAX_STEP_CHARS} characters).`,
              },
              status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
              note: {
                type: 'string',
                description: `Optional: a short note (what was found, why it is blocked), at most ${PLAN_MAX_NOTE_CHARS} characters.`,
              },
            },
            required: ['step', 'status'],
            additionalProperties: false,
          },
        },
      },
      required: ['steps'],
      additionalProperties: false,
    },
  },
  effect: 'plan',
  origin: { kind: 'session' },
  approval: 'none',
  readOnly: false,
  validate: (input) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      return { ok: false, error: `${UPDATE_PLAN}: the input must be a JSON object { "steps": [...] }.` };
    const extra = Object.keys(input).find((k) => k !== 'steps');
    if (extra !== undefined)
      return {
        ok: false,
        error: `${UPDATE_PLAN}: unknown parameter "${extra}". Accepted parameters: steps (required).`,
      };
    const checked = checkPlanSteps((input as { steps?: unknown }).steps);
    return checked.ok ? { ok: true, input: checked.plan } : checked;
  },
  target: (plan) => progressWords(planProgress(plan)),
};
