import { buildLedger, type LedgerEntry } from './ledger';
import type { Block, ConversationState } from '../conversation/conversationModel';
import type { Tokenizer } from '../platform/platformPorts';
import type { Calibration } from '../tokens/calibration';
import { UPDATE_PLAN } from '../plan/planSpec';
import { isPlanReminder } from '../plan/plan';

const NO_CALLS: ReadonlySet<string> = new Set();

/** What the window is spent on, in the order the budget bar stacks it. */
export const BUDGET_CATEGORIES = [
  'system',
  'instructions',
  'workspace',
  'tools',
  'pinned',
  'summaries',
  'plan',
  'user',
  'assistant',
  'toolResults',
  'editor',
] as const;
/** One category of {@link BUDGET_CATEGORIES}. */
export type BudgetCategory = (typeof BUDGET_CATEGORIES)[number];

/** The name each category (and the bar's free and reserved parts) is shown under. */
export const CATEGORY_LABELS: Readonly<Record<BudgetCategory | 'free' | 'reserve', string>> = {
  system: 'System',
  instructions: 'Instructions',
  workspace: 'Workspace',
  tools: 'Tools',
  pinned: 'Pinned',
  summaries: 'Summaries',
  plan: 'Plan',
  user: 'User',
  assistant: 'Assistant',
  toolResults: 'Tool results',
  editor: 'Editor context',
  free: 'Free',
  reserve: 'Output reserve',
};

/** Tokens per category of one request; `total` is the ledger's sum (calibrated, not anchored). */
export interface CategoryTotals {
  readonly tokens: Readonly<Record<BudgetCategory, number>>;
  readonly total: number;
}

/**
 * The category of one ledger row, given the block it came from (tool schemas have none). A
 * system row counts as Instructions or Workspace by its block's source, else as System; a
 * reminder carrying a nested instruction file (it has an origin) counts as Instructions. The
 * plan's calls, their results (`planCalls`: the update_plan calls' ids) and the plan carried
 * over a compaction count as Plan.
 */
export function categoryOf(
  row: Pick<LedgerEntry, 'role'>,
  block: Block | undefined,
  planCalls: ReadonlySet<string> = NO_CALLS,
): BudgetCategory {
  if (row.role === 'tools') return 'tools';
  if (row.role === 'system')
    return block?.meta.source === 'instructions'
      ? 'instructions'
      : block?.meta.source === 'workspace'
        ? 'workspace'
        : 'system';
  if (block?.meta.pinned) return 'pinned';
  if (
    block &&
    ((block.type === 'tool_use' && block.name === UPDATE_PLAN) ||
      (block.type === 'tool_result' && planCalls.has(block.toolUseId)) ||
      isPlanReminder(block))
  )
    return 'plan';
  if (block?.meta.source === 'instructions' || (block?.meta.source === 'reminder' && block.meta.origin !== undefined))
    return 'instructions';
  if (block?.type === 'summary' || block?.meta.source === 'compactor') return 'summaries';
  if (block?.type === 'tool_result') return 'toolResults';
  if (
    block?.meta.source === 'ide_selection' ||
    block?.meta.source === 'ide_opened_file' ||
    block?.meta.source === 'attached_file'
  )
    return 'editor';
  return row.role === 'assistant' ? 'assistant' : 'user';
}

/** Sums a ledger of `state` by category (blocks, system blocks included, found by id for their meta). */
export function categorizeLedger(state: ConversationState, ledger: readonly LedgerEntry[]): CategoryTotals {
  const blocks = new Map<string, Block>();
  const planCalls = new Set<string>();
  for (const b of state.system) blocks.set(b.meta.id, b);
  for (const m of state.messages)
    for (const b of m.blocks) {
      blocks.set(b.meta.id, b);
      if (b.type === 'tool_use' && b.name === UPDATE_PLAN) planCalls.add(b.id);
    }
  const tokens = Object.fromEntries(BUDGET_CATEGORIES.map((c) => [c, 0])) as Record<BudgetCategory, number>;
  let total = 0;
  for (const row of ledger) {
    const c = categoryOf(row, row.blockId !== undefined ? blocks.get(row.blockId) : undefined, planCalls);
    tokens[c] += row.tokens;
    total += row.tokens;
  }
  return { tokens, total };
}

/** Calibrated tokens of every category of the request `state` would produce. */
export function categoriesOf(state: ConversationState, tokenizer: Tokenizer, calibration: Calibration): CategoryTotals {
  return categorizeLedger(state, buildLedger(state, [], tokenizer, calibration));
}

/** One ledger row as the diff reports it. */
export interface LedgerDiffRow {
  readonly key: string;
  readonly label: string;
  readonly before: number;
  readonly after: number;
}

/** Blocks added, removed or changed (tokens differ) between two requests, by block id. */
export interface LedgerDiff {
  readonly added: readonly LedgerDiffRow[];
  readonly removed: readonly LedgerDiffRow[];
  readonly changed: readonly LedgerDiffRow[];
}

const keyOf = (r: LedgerEntry) => r.blockId ?? `${r.role}:${r.kind}:${r.preview.split(':')[0] ?? r.position}`;
const labelOf = (r: LedgerEntry) =>
  `${r.role} · ${r.kind} (${r.source}${r.origin !== undefined ? ` ${r.origin}` : ''})`;

/** The blocks added, removed and changed (tokens differ) from one request's ledger to the next, matched by block id. */
export function diffLedgers(before: readonly LedgerEntry[], after: readonly LedgerEntry[]): LedgerDiff {
  const old = new Map(before.map((r) => [keyOf(r), r]));
  const now = new Map(after.map((r) => [keyOf(r), r]));
  const added: LedgerDiffRow[] = [];
  const changed: LedgerDiffRow[] = [];
  for (const [key, r] of now) {
    const o = old.get(key);
    if (!o) added.push({ key, label: labelOf(r), before: 0, after: r.tokens });
    else if (o.tokens !== r.tokens) changed.push({ key, label: labelOf(r), before: o.tokens, after: r.tokens });
  }
  const removed = [...old]
    .filter(([k]) => !now.has(k))
    .map(([key, r]) => ({ key, label: labelOf(r), before: r.tokens, after: 0 }));
  return { added, removed, changed };
}

/** How many turns of the recent average growth fit before `limit` (undefined: no growth to go by). */
export interface Forecast {
  readonly growthPerTurn: number;
  readonly turns?: number;
  readonly past: boolean;
}

/** Average growth of the prompt per turn over the last `window` turns, and the turns left until `limit`. */
export function forecastTurns(promptPerTurn: readonly number[], limit: number, window = 5): Forecast {
  const current = promptPerTurn.at(-1) ?? 0;
  if (current >= limit && promptPerTurn.length > 0) return { growthPerTurn: 0, past: true };
  const recent = promptPerTurn.slice(-(window + 1));
  if (recent.length < 2) return { growthPerTurn: 0, past: false };
  const growth = ((recent.at(-1) ?? 0) - (recent[0] ?? 0)) / (recent.length - 1);
  if (growth <= 0) return { growthPerTurn: growth, past: false };
  return { growthPerTurn: growth, turns: Math.ceil((limit - current) / growth), past: false };
}
