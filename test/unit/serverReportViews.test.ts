import { strict as assert } from 'node:assert';
import type { CompactionEntryState } from '../../src/core/agent/agentSession';
import type { CompactionRecord } from '../../src/core/compaction/types';
import type { ServerReport } from '../../src/core/llm/serverReport';
import { requestHistoryOf } from '../../src/core/session/requestHistory';
import type { SessionEntry } from '../../src/core/session/entries';
import { BudgetHistory } from '../../src/host/budget/budgetData';
import { compactionContextValue, compactionDescription, compactionLabel } from '../../src/host/compactionRowText';
import { parseBudgetToWebview, type BudgetSnapshot } from '../../src/protocol/budget';
import { ledgerServerNote, serverCell } from '../../src/webview/budget/serverText';
import { NEUTRAL_PRESSURE } from './support/budgetSnapshots';

const usage = {
  input_tokens: 900,
  output_tokens: 50,
  cache_read_input_tokens: 30_000,
  cache_creation_input_tokens: 2_000,
};
const cleared: ServerReport = {
  appliedEdits: [{ type: 'clear_tool_uses_20250919', clearedInputTokens: 12_400, clearedToolUses: 4 }],
  iterations: [],
};
const compacted: ServerReport = {
  appliedEdits: [],
  iterations: [
    {
      type: 'compaction',
      input_tokens: 150_000,
      output_tokens: 3_000,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    },
    { type: 'message', ...usage },
  ],
};
type Row = BudgetSnapshot['requests'][number];
const row = (extra: Partial<Row> = {}): Row => ({
  index: 1,
  promptTokens: 32_900,
  input: 900,
  cacheRead: 30_000,
  cacheWrite: 2_000,
  output: 50,
  estimated: 32_000,
  costUsd: 0.01,
  compactedBefore: false,
  ...extra,
});
const snapshot = (requests: unknown[]) => ({
  type: 'snapshot',
  session: 's',
  model: 'm',
  contextWindow: 1,
  outputReserve: 1,
  softThreshold: 0.7,
  hardThreshold: 0.9,
  pressure: NEUTRAL_PRESSURE,
  categories: [],
  nextTotal: 0,
  nextEstimate: 0,
  calibration: 1,
  tokenizer: 't',
  requests,
  subagents: [],
  summariesCostUsd: 0,
  ledger: [],
  compactions: [],
  pinned: [],
  forecast: { growthPerTurn: 0, past: false, limit: 1 },
  busy: false,
});

describe('budget panel: what the API reported about server context management', () => {
  it('the live history passes the applied edit and the compaction iterations through to the request row', () => {
    const h = new BudgetHistory();
    const observe = (server?: typeof cleared) =>
      h.observe({
        type: 'usage',
        usage,
        model: 'claude-sonnet-4-6',
        costUsd: 0.01,
        estimatedTokens: 32_000,
        reportedTokens: 32_900,
        ...(server ? { server } : {}),
      });
    observe(cleared);
    observe(compacted);
    observe();
    const [a, b, c] = h.requests;
    assert.equal(a?.serverCleared, 12_400);
    assert.equal(a?.serverClearedToolUses, 4);
    assert.equal(a?.serverCompactionTokens, undefined);
    assert.equal(b?.serverCompactionTokens, 153_000);
    assert.equal(b?.serverCleared, undefined);
    assert.deepEqual(
      Object.keys(c ?? {}).filter((k) => k.startsWith('server')),
      [],
    );
    assert.ok(parseBudgetToWebview(snapshot(h.requests)).ok, 'the protocol accepts the server fields');
    assert.ok(!parseBudgetToWebview(snapshot([{ ...row(), serverCleared: '12k' }])).ok);
  });

  it('the history rebuilt from the session file carries the same figures', () => {
    const entry: SessionEntry = {
      type: 'usage',
      at: 1,
      requestIndex: 1,
      turn: 1,
      model: 'claude-sonnet-4-6',
      usage,
      estimatedInputTokens: 32_000,
      costUsd: 0.01,
      server: cleared,
    };
    const panel = new BudgetHistory(requestHistoryOf([entry]));
    assert.equal(panel.requests[0]?.serverCleared, 12_400);
    assert.equal(panel.requests[0]?.serverClearedToolUses, 4);
    assert.ok(parseBudgetToWebview(snapshot(panel.requests)).ok);
  });

  it('the request table says what the server did, and the ledger notes what it cleared', () => {
    assert.equal(
      serverCell(row({ serverCleared: 12_400, serverClearedToolUses: 4 })),
      'server cleared 12,400 tokens (4 tool uses)',
    );
    assert.equal(
      serverCell(row({ serverCleared: 900, serverClearedToolUses: 1 })),
      'server cleared 900 tokens (1 tool use)',
    );
    assert.equal(serverCell(row({ serverCompactionTokens: 153_000 })), 'server compaction 153,000 tokens');
    assert.equal(serverCell(row()), '');
    assert.equal(
      ledgerServerNote(row({ serverCleared: 12_400, serverClearedToolUses: 4 })),
      "The API's context editing cleared 12,400 tokens of this request (4 tool results).",
    );
    assert.equal(ledgerServerNote(row()), undefined);
    assert.equal(ledgerServerNote(undefined), undefined);
  });
});

describe('Compactions view: a server compaction', () => {
  const record = (layer: CompactionRecord['layer']): CompactionRecord => ({
    id: 'c1',
    at: 0,
    trigger: 'auto-soft',
    layer,
    strategy: 'server-compact',
    regions: [],
    originals: [],
    replacement: [],
    summary: 'What happened so far.',
    tokensBefore: 120_000,
    tokensAfter: 40,
    costUsd: 0.02,
    durationMs: 0,
    fallbacks: [],
  });
  const entry = (
    layer: CompactionRecord['layer'],
    extra: Partial<CompactionEntryState> = {},
  ): CompactionEntryState => ({ record: record(layer), active: true, ...extra });

  it('is labelled "Server compaction", and offers no Restore (its contextValue is not compaction-active)', () => {
    assert.equal(compactionLabel(entry('server-compact'), '10:42:07'), 'Server compaction · 10:42:07');
    assert.equal(compactionContextValue(entry('server-compact')), 'compaction-server');
    assert.match(
      compactionContextValue(entry('server-compact')),
      /^compaction/,
      'Copy Summary and Show in Budget stay offered',
    );
    assert.equal(compactionDescription(entry('server-compact')), '120,000 → 40');
  });

  it('our own compactions keep their trigger label and Restore', () => {
    assert.equal(compactionLabel(entry('summarise'), '10:42:07'), 'Auto (soft) · 10:42:07');
    assert.equal(compactionContextValue(entry('summarise')), 'compaction-active');
    assert.equal(compactionContextValue(entry('summarise', { active: false })), 'compaction-restored');
    assert.equal(compactionContextValue(entry('server-compact', { orphaned: true })), 'compaction-orphaned');
  });

  it('package.json offers Restore only on compaction-active rows', async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as {
      contributes: { menus: Record<string, { command: string; when: string }[]> };
    };
    const restore = pkg.contributes.menus['view/item/context']!.filter(
      (m) => m.command === 'contextPipeline.restoreCompaction',
    );
    assert.ok(restore.length > 0 && restore.every((m) => /viewItem == compaction-active(\s|$)/.test(m.when)));
  });
});
