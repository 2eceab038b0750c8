/**
 * Rebuilds a conversation from the entries of a session file (compactions, restores, repairs
 * and pins applied), then repairs it with `repairMessages` (repair.ts). Pure.
 */
import type { Block, Message, Plan } from '../conversation/conversationModel';
import {
  SESSION_FORMAT,
  SESSION_VERSION,
  type CompactionEntry,
  type HeaderEntry,
  type SessionEntry,
  type UsageEntry,
} from './entries';
import { laterChanges, type RestoreOrderEntry } from '../compaction/restoreOrder';
import { repairMessages } from './repair';
import { isFilesOnlyRewind, reinsertRewind } from '../compaction/rewind';
import { requestHistoryOf, type RequestHistory } from './requestHistory';
import { checkPlanSteps } from '../plan/plan';
import type { PlanChange } from '../plan/planHistory';
import { subagentRecordOf } from './subagentEntry';
import type { SubagentRecord } from '../subagents/subagentRecord';

/** A compaction of the session and whether it is still in effect (not restored). */
export interface CompactionState {
  readonly entry: CompactionEntry;
  readonly active: boolean;
  /**
   * Set when none of the messages it replaced were in the conversation (they were lost to
   * damage): it is not in effect, is kept for its originals (their only copy) and cannot be
   * restored.
   */
  readonly orphaned?: true;
  /** How many recall calls returned content from it (absent: none). */
  readonly recalled?: number;
}

/** A session as rebuilt from its entries. */
export interface ReplayedSession {
  readonly header: HeaderEntry;
  /** The header's title, else undefined. */
  readonly title: string | undefined;
  /** The current conversation: compactions and restores applied, repaired, pins applied. */
  readonly messages: readonly Message[];
  /** Ids of the pinned blocks of `messages`. */
  readonly pins: readonly string[];
  readonly usage: readonly UsageEntry[];
  /** Every request with its usage and compaction markers, rebuilt from the applied entries. */
  readonly requestHistory: RequestHistory;
  readonly compactions: readonly CompactionState[];
  /** The agent's plan as the last readable plan line left it (undefined: none, or cleared). */
  readonly plan: Plan | undefined;
  /** Every readable plan line as a change of the plan, oldest first (planHistory.ts). */
  readonly planChanges: readonly PlanChange[];
  /** The session's subagents that ended, oldest first (what each did and cost). */
  readonly subagents: readonly SubagentRecord[];
  /** Latest time found in the entries (ms). */
  readonly updatedAt: number;
  /** Entries that could not be applied, as sentences for the user. */
  readonly problems: readonly string[];
  /** What `repairMessages` changed, as sentences for the user. */
  readonly fixes: readonly string[];
  /** Indices of entries that had no effect (see `problems`); a rewrite may drop them. */
  readonly ignored: readonly number[];
}

/**
 * Applies the entries in order: messages append, a compaction swaps the messages it names
 * for its replacement, a restore swaps them back (skipped while a later compaction still in
 * effect changed its messages: restoreOrder.ts), a repair entry resets the conversation,
 * pins and usage are collected, the last plan line gives the plan (one breaking the plan's
 * rules is skipped and reported). A compaction none of whose messages are
 * in the conversation is kept as `orphaned` (out of effect) when it holds originals. Entries
 * that cannot apply (an unknown compaction, a second header) are skipped and reported.
 * The result is then repaired with `repairMessages`. A missing header is reported and
 * replaced by a placeholder.
 */
export function replaySession(entries: readonly SessionEntry[]): ReplayedSession {
  let header: HeaderEntry | undefined;
  let title: string | undefined;
  let messages: Message[] = [];
  let updatedAt = 0;
  let plan: Plan | undefined;
  const subagents: SubagentRecord[] = [];
  const planChanges: PlanChange[] = [];
  const pinState = new Map<string, { pinned: boolean; index: number[] }>();
  const usage: UsageEntry[] = [];
  const compactions = new Map<
    string,
    { entry: CompactionEntry; active: boolean; orphaned?: true; recalled?: number }
  >();
  const problems: string[] = [];
  const ignored: number[] = [];
  /** Indices of orphaned compactions: kept in the file, but they changed nothing. */
  const orphans: number[] = [];
  const skip = (index: number, why: string) => {
    problems.push(why);
    ignored.push(index);
  };
  entries.forEach((e, i) => {
    if (e.type === 'header') {
      if (header) return skip(i, 'A second header line was ignored.');
      header = e;
      title = e.title;
      updatedAt = Math.max(updatedAt, e.createdAt);
      return;
    }
    updatedAt = Math.max(updatedAt, e.at);
    switch (e.type) {
      case 'message':
        messages.push(e.message);
        break;
      case 'usage':
        usage.push(e);
        break;
      case 'compaction': {
        if (compactions.has(e.id)) return skip(i, `Compaction ${e.id} was skipped: its id repeats.`);
        // A rewind of the workspace files only changed no message: it is in effect as it is.
        if (isFilesOnlyRewind(e)) {
          compactions.set(e.id, { entry: e, active: true });
          break;
        }
        const swapped = swap(messages, e.replacedIds, e.replacement);
        if (!swapped && e.originals.length === 0)
          return skip(
            i,
            `Compaction ${e.id} was skipped: none of the messages it replaced are in the conversation, and it kept none of them.`,
          );
        // Its messages are gone: keep it, out of effect, for its originals (their only copy).
        if (!swapped) {
          compactions.set(e.id, { entry: e, active: false, orphaned: true });
          orphans.push(i);
        } else {
          messages = swapped;
          compactions.set(e.id, { entry: e, active: true });
        }
        break;
      }
      case 'restore': {
        const c = compactions.get(e.compactionId);
        const later = c?.active ? laterChanges(orderEntries(compactions), e.compactionId) : [];
        // Written by a build that restored out of order: undoing it now would undo the later change too.
        if (c && later.length > 0)
          return skip(
            i,
            `The undo of compaction ${e.compactionId} was skipped: a later compaction still in effect (${later.map((l) => l.id).join(', ')}) changed its messages.`,
          );
        const swapped = !c?.active
          ? undefined
          : isFilesOnlyRewind(c.entry)
            ? messages
            : c.entry.layer === 'rewind'
              ? reinsertRewind(messages, c.entry)
              : swap(
                  messages,
                  c.entry.replacement.map((m) => m.id),
                  c.entry.originals,
                );
        if (!c || !swapped)
          return skip(
            i,
            `The undo of compaction ${e.compactionId} was skipped: ${!c ? 'that compaction is not in the file' : c.orphaned ? 'the messages it replaced were not in the conversation' : c.active ? 'its summary is no longer in the conversation' : 'it was already undone'}.`,
          );
        messages = swapped;
        c.active = false;
        break;
      }
      case 'pin':
      case 'unpin': {
        const s = pinState.get(e.blockId);
        if (s) {
          s.pinned = e.type === 'pin';
          s.index.push(i);
        } else pinState.set(e.blockId, { pinned: e.type === 'pin', index: [i] });
        break;
      }
      case 'recall':
        // Only a count: a recall of a compaction the file does not hold is simply not counted.
        for (const id of new Set(e.compactionIds)) {
          const c = compactions.get(id);
          if (c) c.recalled = (c.recalled ?? 0) + 1;
        }
        break;
      case 'plan': {
        if (e.steps.length === 0) {
          plan = undefined;
          planChanges.push({ at: e.at, ...(e.toolUseId !== undefined ? { toolUseId: e.toolUseId } : {}) });
          break;
        }
        // A hand-made or damaged plan breaking the plan's rules is left out: the plan before it stands.
        const checked = checkPlanSteps(e.steps, 'the plan');
        if (!checked.ok) return skip(i, `A saved plan was left out: ${checked.error.replace(/^the plan: /, '')}`);
        plan = checked.plan;
        planChanges.push({ at: e.at, plan, ...(e.toolUseId !== undefined ? { toolUseId: e.toolUseId } : {}) });
        break;
      }
      case 'subagent':
        subagents.push(subagentRecordOf(e));
        break;
      case 'repair':
        messages = [...e.messages];
        break;
    }
  });
  if (!header) problems.push('The session had no header; a placeholder was used.');
  const repaired = repairMessages(messages);
  const everyMessage = [
    ...repaired.messages,
    ...[...compactions.values()].flatMap((c) => [...c.entry.originals, ...c.entry.replacement]),
  ];
  const known = new Set(everyMessage.flatMap((m) => m.blocks.map((b) => b.meta.id)));
  for (const [id, s] of pinState) {
    if (known.has(id)) continue;
    problems.push(
      `${s.index.length === 1 ? 'A pin' : `${s.index.length} pins`} of block ${id}, which is in no message, ${s.index.length === 1 ? 'was' : 'were'} ignored.`,
    );
    ignored.push(...s.index);
  }
  const final = repaired.messages.map((m) => withPins(m, pinState));
  const skipped = new Set([...ignored, ...orphans]);
  return {
    header: header ?? {
      type: 'header',
      format: SESSION_FORMAT,
      version: SESSION_VERSION,
      sessionId: 'unknown',
      createdAt: updatedAt,
      model: 'unknown',
      workspace: '',
    },
    title,
    messages: final,
    pins: final.flatMap((m) => m.blocks.filter((b) => b.meta.pinned).map((b) => b.meta.id)),
    usage,
    requestHistory: requestHistoryOf(entries.filter((_, i) => !skipped.has(i))),
    compactions: [...compactions.values()].map((c) => ({
      entry: c.entry,
      active: c.active,
      ...(c.orphaned ? { orphaned: true as const } : {}),
      ...(c.recalled ? { recalled: c.recalled } : {}),
    })),
    plan,
    planChanges,
    subagents,
    updatedAt,
    problems,
    fixes: repaired.fixes,
    ignored: ignored.sort((a, b) => a - b),
  };
}

/** The compactions so far, oldest first, as restore order reads them. */
function orderEntries(
  compactions: ReadonlyMap<string, { entry: CompactionEntry; active: boolean; orphaned?: true }>,
): RestoreOrderEntry<CompactionEntry>[] {
  return [...compactions.values()].map((c) => ({
    record: c.entry,
    active: c.active,
    ...(c.orphaned ? { orphaned: true as const } : {}),
  }));
}

/** Replaces the messages whose ids are in `ids` by `replacement`, placed where the first was. */
function swap(
  messages: readonly Message[],
  ids: readonly string[],
  replacement: readonly Message[],
): Message[] | undefined {
  const set = new Set(ids);
  const at = messages.findIndex((m) => set.has(m.id));
  if (at < 0) return undefined;
  const rest = messages.filter((m) => !set.has(m.id));
  return [...rest.slice(0, at), ...replacement, ...rest.slice(at)];
}

/** `m` with the last pin/unpin of each block applied (the same object when nothing changes). */
function withPins(m: Message, pins: ReadonlyMap<string, { pinned: boolean }>): Message {
  const flip = (b: Block) => {
    const p = pins.get(b.meta.id);
    return p !== undefined && p.pinned !== b.meta.pinned;
  };
  if (!m.blocks.some(flip)) return m;
  return {
    ...m,
    blocks: m.blocks.map((b) => (flip(b) ? ({ ...b, meta: { ...b.meta, pinned: !b.meta.pinned } } as Block) : b)),
  };
}
