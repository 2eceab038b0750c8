/**
 * The plan's changes over a session (each update_plan call's plan, each Clear), in order, so a
 * Retry or Edit of the last turn can put the plan back as it was before that turn, and the
 * restore of such a rewind can bring the turn's plan back. Pure.
 */
import type { Message, Plan } from '../conversation/conversationModel';
import { UPDATE_PLAN, UPDATE_PLAN_SPEC } from './planSpec';

/** One change of the plan: the plan from then on (absent: cleared), when, and the call that made it. */
export interface PlanChange {
  readonly at: number;
  readonly plan?: Plan;
  readonly toolUseId?: string;
}

/** The plan in force just before `at`: the last change made earlier (undefined: none, or cleared). */
export function planBefore(changes: readonly PlanChange[], at: number): Plan | undefined {
  let plan: Plan | undefined;
  for (const c of changes) if (c.at < at) plan = c.plan;
  return plan;
}

/** Whether the plan changed at or after `at`. */
export function planChangedSince(changes: readonly PlanChange[], at: number): boolean {
  return changes.some((c) => c.at >= at);
}

/** When the first of `messages` was made: the earliest creation time of its blocks (Infinity for none). */
export function startOf(messages: readonly Message[]): number {
  const first = messages[0];
  return first ? Math.min(...first.blocks.map((b) => b.meta.createdAt)) : Number.POSITIVE_INFINITY;
}

/**
 * The plan of the newest update_plan call of `messages` that succeeded (its input passes the
 * plan's check and its result is not an error); undefined when none did.
 */
export function latestPlanIn(messages: readonly Message[]): Plan | undefined {
  const failed = new Set(
    messages.flatMap((m) => m.blocks.flatMap((b) => (b.type === 'tool_result' && b.isError ? [b.toolUseId] : []))),
  );
  for (const m of [...messages].reverse())
    for (const b of [...m.blocks].reverse()) {
      if (b.type !== 'tool_use' || b.name !== UPDATE_PLAN || failed.has(b.id)) continue;
      const checked = UPDATE_PLAN_SPEC.validate(b.input);
      if (checked.ok) return checked.input;
    }
  return undefined;
}
