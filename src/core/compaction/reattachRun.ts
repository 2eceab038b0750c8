/**
 * The survive step of a compaction run — what survives a compaction that summarised or
 * dropped turns, one mechanism with parts: the agent's plan (survivePlan.ts: unless the kept
 * history still shows it) and the files read or edited most recently (reattachCandidates.ts,
 * read fresh and rendered by reattach.ts within the room the compaction left). Each part is
 * one reminder block in the run's last such record (reattachRecord.ts), counted in its
 * `tokensAfter` and the budget, listed in the record (`carriedPlan`, `reattached`) and undone
 * by its Restore. Pure apart from the injected reader; never fails — at worst the run is
 * returned unchanged.
 */
import type { ConversationState, Message } from '../conversation/conversationModel';
import type { Clock, IdSource } from '../platform/platformPorts';
import { effectiveWindow, type CompactionSettings } from './policy';
import {
  isReattachReminder,
  readReattachments,
  reattachBlock,
  renderReattachment,
  type ReadFresh,
  type ReattachEntry,
} from './reattach';
import { reattachSelection, type IndexedFile } from './fileIndex';
import { withReattachment } from './reattachRecord';
import { textTokenCounter } from './textTokens';
import { planPart, type PlanPart } from './survivePlan';
import { REGION_LAYERS, type CarriedPlan, type CompactionRecord, type ReattachedFile } from './types';

export type { ReadFresh } from './reattach';

/**
 * The re-attached files' content takes at most this many tokens in all (5 files of ~5k),
 * counting the reminders of earlier compactions that still stand in the history (stacked
 * summaries keep theirs), so re-attached content never piles up beyond it.
 */
export const REATTACH_TOTAL_TOKENS = 25_000;

/** …and at most this share of the effective window (a small window cannot carry 25k of files for good). */
export const REATTACH_WINDOW_SHARE = 0.1;

/**
 * Share of the room between the compacted prompt and the next compaction's threshold that
 * re-attached content may take: the rest is left for the conversation to grow, so a
 * re-attach never brings the next compaction much closer.
 */
export const REATTACH_ROOM_SHARE = 0.25;

/** What the survive step needs besides the run. */
export interface ReattachDeps {
  /** Reads files fresh; without it (no reader, or the re-attach setting off) no file survives, only the plan. */
  readonly readFresh: ReadFresh | undefined;
  readonly tokensOf: (m: Message) => number;
  /** Best estimate of a whole request's prompt tokens. */
  readonly measure: (state: ConversationState) => number;
  readonly settings: CompactionSettings;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** When set, content may take only the tokens the run freed beyond this many (after an overflow). */
  readonly surplusOver?: number;
}

/** A run's state and records, with the re-attach applied to them (or unchanged). */
export interface ReattachOutcome {
  readonly state: ConversationState;
  readonly records: readonly CompactionRecord[];
}

/**
 * What survives `run` (a compaction of `before`): nothing when no record of the run
 * summarised or dropped turns. Otherwise, appended to the lead message of the run's last such
 * record: the plan's reminder (when there is a plan the kept history does not show), then one
 * files reminder — content while it fits {@link reattachBudget} (less the plan's tokens), the
 * other files as references, then the index of the other files touched earlier
 * (fileIndex.ts). When that would stop the record shrinking the context: references only (with
 * the index, then without it), then the plan alone; when even that does, nothing.
 */
export async function reattach(
  before: ConversationState,
  run: ReattachOutcome,
  deps: ReattachDeps,
): Promise<ReattachOutcome> {
  let at = -1;
  run.records.forEach((r, i) => {
    if (REGION_LAYERS.has(r.layer)) at = i;
  });
  const record = run.records[at];
  if (!record) return run;
  const textTokens = textTokenCounter(deps.tokensOf);
  const plan = planPart(run.state.plan, run.state.messages, textTokens);
  const read = deps.readFresh
    ? await readSelection(before.messages, run.state.messages, { ...deps, readFresh: deps.readFresh })
    : undefined;
  const planTokens = plan?.carried.tokens ?? 0;
  const attempts: Array<{ budget: number; listed: readonly IndexedFile[] } | undefined> = [];
  if (read) {
    const budget = reattachBudget(run, { ...deps, standing: read.standing + planTokens });
    attempts.push(
      ...(budget > 0 ? [{ budget, listed: read.index }] : []),
      { budget: 0, listed: read.index },
      ...(read.index.length > 0 ? [{ budget: 0, listed: [] }] : []),
    );
  }
  if (plan) attempts.push(undefined);
  for (const a of attempts) {
    const files = a && read ? renderReattachment(read.entries, a.budget, textTokens, a.listed) : undefined;
    if (a && !files && !plan) return run;
    const rebuilt = withSurvivors(run.state, record, plan, files, deps);
    if (rebuilt) return { state: rebuilt.state, records: run.records.map((x, i) => (i === at ? rebuilt.record : x)) };
  }
  return run;
}

/** `record` rebuilt with the plan's and the files' reminders (each when given); undefined when it stops shrinking. */
function withSurvivors(
  state: ConversationState,
  record: CompactionRecord,
  plan: PlanPart | undefined,
  files: { readonly text: string; readonly files: readonly ReattachedFile[] } | undefined,
  deps: Pick<ReattachDeps, 'tokensOf' | 'clock' | 'ids'>,
) {
  if (!plan && !files) return undefined;
  const blocks = [
    ...(plan ? [reattachBlock(plan.text, deps)] : []),
    ...(files ? [reattachBlock(files.text, deps)] : []),
  ];
  return withReattachment(
    state,
    record,
    blocks,
    { ...(plan ? { carriedPlan: plan.carried } : {}), ...(files ? { reattached: files.files } : {}) },
    deps.tokensOf,
  );
}

/** What survives a compaction, as Compact Now's preview reads it before the run. */
export interface ReattachPreview {
  /** Tokens of the reminders (the plan's; the files': content, references and index). */
  readonly tokens: number;
  /** The plan it would carry, when it would. */
  readonly plan?: CarriedPlan;
  /** The files it would re-attach, most recent first: with content, or by path with the reason. */
  readonly files: readonly ReattachedFile[];
  /** The files its index would name by path only, most recent first. */
  readonly named: readonly IndexedFile[];
}

/**
 * What survives a compaction of `before` leaving `after` (a prompt of about `expectedAfter`
 * tokens), read now the way the run reads it: the same plan, the same files, the same budget,
 * the same reminders. The run reads the files again, so a file changed meanwhile changes its
 * figure. Nothing (`tokens` 0, no files) when nothing qualifies.
 */
export async function previewReattach(
  before: ConversationState,
  after: readonly Message[],
  expectedAfter: number,
  deps: Pick<ReattachDeps, 'readFresh' | 'tokensOf' | 'settings'>,
): Promise<ReattachPreview> {
  const plan = planPart(before.plan, after, textTokenCounter(deps.tokensOf));
  const read = deps.readFresh
    ? await readSelection(before.messages, after, { readFresh: deps.readFresh, tokensOf: deps.tokensOf })
    : undefined;
  const planned = plan ? { tokens: plan.carried.tokens, plan: plan.carried } : { tokens: 0 };
  const budget = reattachBudget(
    { state: { ...before, messages: after }, records: [] },
    { measure: () => expectedAfter, settings: deps.settings, standing: (read?.standing ?? 0) + planned.tokens },
  );
  const r = read && renderReattachment(read.entries, budget, read.textTokens, read.index);
  return r && read
    ? { ...planned, tokens: planned.tokens + read.textTokens(r.text), files: r.files, named: read.index }
    : { ...NOTHING_TO_REATTACH, ...planned };
}

const NOTHING_TO_REATTACH: ReattachPreview = { tokens: 0, files: [], named: [] };

/**
 * What the run and the preview both start from: the files a compaction of `before` leaving
 * `after` re-attaches (read fresh) and names, a counter of a text's tokens, and the tokens of
 * the earlier reminders still standing in `after`; undefined when no file qualifies.
 */
async function readSelection(
  before: readonly Message[],
  after: readonly Message[],
  deps: { readonly readFresh: ReadFresh; readonly tokensOf: (m: Message) => number },
): Promise<
  | {
      readonly index: readonly IndexedFile[];
      readonly entries: readonly ReattachEntry[];
      readonly textTokens: (text: string) => number;
      readonly standing: number;
    }
  | undefined
> {
  const { candidates, index } = reattachSelection(before, after);
  if (candidates.length === 0 && index.length === 0) return undefined;
  const textTokens = textTokenCounter(deps.tokensOf);
  const entries = await readReattachments(candidates, { readFresh: deps.readFresh, textTokens });
  return { index, entries, textTokens, standing: standingReminderTokens(after, textTokens) };
}

/**
 * Tokens the re-attached content may take: at most REATTACH_TOTAL_TOKENS (or
 * REATTACH_WINDOW_SHARE of the effective window, if less) less `standing`
 * (earlier reminders still in the history), and at most
 * REATTACH_ROOM_SHARE of the room between the compacted prompt and the lower of the soft
 * threshold and the hard compaction's target (so the next request does not compact again
 * at once); after an overflow, also at most what the run freed beyond what it was asked to.
 */
export function reattachBudget(
  run: ReattachOutcome,
  deps: Pick<ReattachDeps, 'measure' | 'settings' | 'surplusOver'> & { readonly standing?: number },
): number {
  const config = run.state.config;
  const ceiling =
    Math.min(config.softThreshold, config.hardThreshold - deps.settings.hardBuffer) * effectiveWindow(config);
  const total = Math.min(REATTACH_TOTAL_TOKENS, REATTACH_WINDOW_SHARE * effectiveWindow(config));
  let budget = Math.min(total - (deps.standing ?? 0), REATTACH_ROOM_SHARE * (ceiling - deps.measure(run.state)));
  if (deps.surplusOver !== undefined) {
    const freed = run.records.reduce((n, r) => n + r.tokensBefore - r.tokensAfter, 0);
    budget = Math.min(budget, freed - deps.surplusOver);
  }
  return Math.max(0, Math.floor(budget));
}

/** Tokens of the re-attach reminders of earlier compactions still standing in `messages`. */
function standingReminderTokens(messages: readonly Message[], textTokens: (text: string) => number): number {
  let n = 0;
  for (const m of messages)
    for (const b of m.blocks) if (b.type === 'text' && isReattachReminder(b)) n += textTokens(b.text);
  return n;
}
