/**
 * What the budget panel says about the API's server-side context management, per request:
 * its context editing (`applied_edits`) and its compaction iterations. Pure text, so it is
 * unit-tested without a DOM.
 */
import type { BudgetSnapshot } from '../../protocol/budget';
import { formatTokens } from '../shared/dom';

type RequestRow = BudgetSnapshot['requests'][number];

function plural(n: number, one: string, many: string): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** The request table's "Server" cell: e.g. "server cleared 12.4k tokens (4 tool uses)"; empty when the server did nothing. */
export function serverCell(r: RequestRow): string {
  const parts: string[] = [];
  if (r.serverCleared !== undefined && r.serverCleared > 0)
    parts.push(
      `server cleared ${formatTokens(r.serverCleared)} tokens${r.serverClearedToolUses ? ` (${plural(r.serverClearedToolUses, 'tool use', 'tool uses')})` : ''}`,
    );
  if (r.serverCompactionTokens !== undefined && r.serverCompactionTokens > 0)
    parts.push(`server compaction ${formatTokens(r.serverCompactionTokens)} tokens`);
  return parts.join(' · ');
}

/**
 * The line under the last request's ledger when the API cleared tokens from it (the ledger
 * lists what we sent, not what the model saw); undefined when it cleared nothing.
 */
export function ledgerServerNote(r: RequestRow | undefined): string | undefined {
  if (!r || r.serverCleared === undefined || r.serverCleared <= 0) return undefined;
  const results = r.serverClearedToolUses ? ` (${plural(r.serverClearedToolUses, 'tool result', 'tool results')})` : '';
  return `The API's context editing cleared ${formatTokens(r.serverCleared)} tokens of this request${results}.`;
}
