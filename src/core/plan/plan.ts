/**
 * The agent's plan: the list of steps it keeps with `update_plan`, each with a status. Session
 * state (ConversationState.plan), saved as its own entry in the session file, shown as the
 * chat's checklist and carried after a compaction (survivePlan.ts). The one check every plan
 * goes through — the model's call, a line read back from the file — and the texts made from
 * it. Pure.
 */
import * as v from 'valibot';
import type { Block, Plan, PlanStatus, PlanStep } from '../conversation/conversationModel';
import { neutralizeUntrusted } from '../conversation/injections';
import { toWellFormed } from '../platform/text';
import { formatCount } from '../text/counts';

/** Every PlanStatus. */
export const PLAN_STATUSES: readonly PlanStatus[] = ['pending', 'in_progress', 'completed'];

/** Most steps a plan may have: a longer list is a backlog, not a plan. */
export const PLAN_MAX_STEPS = 30;
/** Most characters of one step's words. */
export const PLAN_MAX_STEP_CHARS = 200;
/** Most characters of one step's note. */
export const PLAN_MAX_NOTE_CHARS = 300;

const StepShape = v.object({
  step: v.string(),
  status: v.picklist(PLAN_STATUSES),
  note: v.optional(v.nullable(v.string())),
});

/** A checked plan, or one sentence naming what is wrong and how to fix it (prefixed by `who`). */
export type PlanCheck = { readonly ok: true; readonly plan: Plan } | { readonly ok: false; readonly error: string };

/**
 * Checks `steps` (untrusted: the model's JSON or a line of the session file): an array of 1 to
 * {@link PLAN_MAX_STEPS} objects `{ step, status, note? }`, each step's words non-blank and at
 * most {@link PLAN_MAX_STEP_CHARS} characters, a note at most {@link PLAN_MAX_NOTE_CHARS}, at
 * most one step `in_progress`. Words are trimmed and made well formed; a blank note is left
 * out. Never throws.
 */
export function checkPlanSteps(steps: unknown, who = 'update_plan'): PlanCheck {
  if (!Array.isArray(steps))
    return { ok: false, error: `${who}: "steps" must be an array of { step, status, note? } objects.` };
  if (steps.length === 0)
    return { ok: false, error: `${who}: "steps" is empty; give the whole plan, at least one step.` };
  if (steps.length > PLAN_MAX_STEPS)
    return {
      ok: false,
      error: `${who}: ${formatCount(steps.length)} steps is too many (at most ${PLAN_MAX_STEPS}); merge small steps into larger ones.`,
    };
  const out: PlanStep[] = [];
  for (const [i, raw] of steps.entries()) {
    const at = `step ${i + 1}`;
    const parsed = v.safeParse(StepShape, raw);
    if (!parsed.success)
      return {
        ok: false,
        error: `${who}: ${at} must be an object { "step": text, "status": "pending" | "in_progress" | "completed", "note"?: text }.`,
      };
    const unknown = Object.keys(raw as object).find((k) => k !== 'step' && k !== 'status' && k !== 'note');
    if (unknown !== undefined)
      return { ok: false, error: `${who}: ${at} has an unknown field "${unknown}" (fields: step, status, note).` };
    const words = oneLine(parsed.output.step);
    if (words === '') return { ok: false, error: `${who}: ${at} has no words; say what the step does.` };
    if (words.length > PLAN_MAX_STEP_CHARS)
      return {
        ok: false,
        error: `${who}: ${at} is ${formatCount(words.length)} characters (at most ${PLAN_MAX_STEP_CHARS}); keep a step to one short line and put details in "note".`,
      };
    const note = oneLine(parsed.output.note ?? '');
    if (note.length > PLAN_MAX_NOTE_CHARS)
      return {
        ok: false,
        error: `${who}: the note of ${at} is ${formatCount(note.length)} characters (at most ${PLAN_MAX_NOTE_CHARS}).`,
      };
    out.push({ step: words, status: parsed.output.status, ...(note !== '' ? { note } : {}) });
  }
  const running = out.flatMap((s, i) => (s.status === 'in_progress' ? [i + 1] : []));
  if (running.length > 1)
    return {
      ok: false,
      error: `${who}: steps ${running.join(', ')} are all in_progress; at most one step may be in progress (mark the others pending or completed).`,
    };
  return { ok: true, plan: { steps: out } };
}

/** How far the plan is: steps done, all steps, and the step in progress (if any). */
export interface PlanProgress {
  readonly completed: number;
  readonly total: number;
  readonly inProgress?: string;
}

/** The plan's progress. */
export function planProgress(plan: Plan): PlanProgress {
  const current = plan.steps.find((s) => s.status === 'in_progress');
  return {
    completed: plan.steps.filter((s) => s.status === 'completed').length,
    total: plan.steps.length,
    ...(current ? { inProgress: current.step } : {}),
  };
}

/** `3 of 7 done`: the count the checklist and the tool's result share. */
export function progressWords(p: Pick<PlanProgress, 'completed' | 'total'>): string {
  return `${formatCount(p.completed)} of ${formatCount(p.total)} done`;
}

/**
 * The tool's short result (it never echoes the plan back): `Plan updated: 3 of 7 done; in
 * progress: Write the tests.`, or a nudge when no step is in progress while some are left.
 */
export function planResultText(plan: Plan): string {
  const p = planProgress(plan);
  const head = `Plan updated: ${progressWords(p)}`;
  if (p.inProgress !== undefined) return `${head}; in progress: ${p.inProgress}.`;
  if (p.completed === p.total) return `${head}. Every step is completed.`;
  return `${head}; no step is in progress (mark the one you work on in_progress).`;
}

/** Whether two plans hold the same steps (words, statuses and notes), in the same order. */
export function samePlan(a: Plan | undefined, b: Plan | undefined): boolean {
  if (!a || !b) return a === b;
  return (
    a.steps.length === b.steps.length &&
    a.steps.every((s, i) => {
      const o = b.steps[i];
      return o !== undefined && o.step === s.step && o.status === s.status && (o.note ?? '') === (s.note ?? '');
    })
  );
}

const MARKS: Readonly<Record<PlanStatus, string>> = { pending: '[ ]', in_progress: '[>]', completed: '[x]' };

/**
 * The plan as lines the model reads (in the survive reminder and the summariser's prompt):
 * `1. [x] Read the code`, `2. [>] Write the tests — note`, `3. [ ] Update the docs`. The
 * words are untrusted (the model's, or the file's): our tags in them are neutralised.
 */
export function planLines(plan: Plan): string {
  return plan.steps
    .map(
      (s, i) =>
        `${i + 1}. ${MARKS[s.status]} ${neutralizeUntrusted(s.step)}${s.note !== undefined ? ` — ${neutralizeUntrusted(s.note)}` : ''}`,
    )
    .join('\n');
}

/** Words on one line: runs of whitespace (newlines too) become one space; trimmed, well formed. */
function oneLine(text: string): string {
  return toWellFormed(text.replace(/\s+/g, ' ').trim());
}

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
