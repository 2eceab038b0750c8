/**
 * The budget panel's forecast card in words: when the soft threshold comes at the recent
 * growth, and what the compactor's plan says the next compaction does, where and why. Pure:
 * the panel (main.ts) puts the strings into the DOM.
 */
import type { BudgetSnapshot } from '../../protocol/budget';
import { formatTokens } from '../shared/dom';

/**
 * The forecast line and the next compaction's line, each two short sentences; the next
 * compaction's why and what it keeps follow in `detail` (absent `next`: no plan).
 */
export interface ForecastText {
  readonly forecast: string;
  readonly next?: { readonly action: 'none' | 'mask' | 'summarise'; readonly text: string; readonly detail: string };
}

const turnsWord = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'turn' : 'turns'}`;

/** What the protected tail keeps, in words: its budget, and what it holds today. */
function keptText(next: NonNullable<BudgetSnapshot['nextCompaction']>): string {
  if (next.keepsFromTurn === undefined) return '';
  const own = ' Your own words are kept verbatim (only if they alone outgrow the window are older long ones cut).';
  // keepRecentTokens 0: no token budget, only the kept turns and the last tool round stay.
  const noBudget = next.keepBudget <= 0;
  if (next.keepsAll)
    return noBudget
      ? ` It keeps the newest turns and the last tool round verbatim (no token budget is set): today that is the whole conversation (${formatTokens(next.keptTokens)} tokens).${own}`
      : ` It keeps the newest ${formatTokens(next.keepBudget)} tokens verbatim: today that is the whole conversation (${formatTokens(next.keptTokens)} tokens).${own}`;
  const reach = noBudget
    ? 'no token budget is set, so the kept turns and the last tool round'
    : `at least its ${formatTokens(next.keepBudget)}-token budget, out to where a tool round starts`;
  return ` It keeps the newest ${formatTokens(next.keptTokens)} tokens verbatim (from turn ${next.keepsFromTurn}: ${reach}).${own}`;
}

/** The forecast card's text for snapshot `s`. */
export function forecastText(s: BudgetSnapshot): ForecastText {
  const f = s.forecast;
  const limit = `${formatTokens(f.limit)} tokens`;
  const forecast = f.past
    ? `Already past the soft threshold (${limit}). The next request compacts or proposes compaction.`
    : f.turns !== undefined
      ? `The soft threshold (${limit}) is ≈ ${turnsWord(f.turns)} away. The prompt grows ${formatTokens(f.growthPerTurn)} tokens a turn on average.`
      : `The soft threshold is at ${limit}. Too few turns yet to forecast when it comes.`;
  if (s.engine?.ownsCompaction)
    return {
      forecast: `The context engine "${s.engine.name}" decides what each request carries: the pipeline's own compaction is off (its guard on oversized tool results stays). The session keeps the whole conversation.`,
    };
  const next = s.nextCompaction;
  if (!next) return { forecast };
  const what =
    next.action === 'mask'
      ? 'clears older tool results'
      : next.action === 'summarise'
        ? 'summarises older history'
        : undefined;
  const payback =
    next.paybackRequests !== undefined && next.action !== 'none'
      ? ` It pays back its prompt-cache rewrite in about ${Math.max(1, Math.ceil(next.paybackRequests))} requests.`
      : '';
  const text = what
    ? `The next request ${what}. It takes the prompt from ${formatTokens(next.atTokens)} to about ${formatTokens(next.expectedAfter)} tokens.`
    : `Next compaction at about ${formatTokens(next.atTokens)} tokens (marked on the bar). ${next.turns !== undefined ? `That is ≈ ${turnsWord(next.turns)} away at the recent growth.` : 'The recent growth does not say when yet.'}`;
  return { forecast, next: { action: next.action, text, detail: `${next.reason}${keptText(next)}${payback}` } };
}
