import { strict as assert } from 'node:assert';
import { BUDGET_CATEGORIES, categoriesOf, diffLedgers, forecastTurns } from '../../src/core/pipeline/budget';
import { buildLedger } from '../../src/core/pipeline/ledger';
import type { ConversationState, TextBlock } from '../../src/core/conversation/conversationModel';
import { initialCalibration } from '../../src/core/tokens/calibration';
import { parseBudgetToHost, parseBudgetToWebview } from '../../src/protocol/budget';
import { Build, emptyState } from './support/builders';
import { countingTokenizer } from './support/tokenFakes';
import { NEUTRAL_PRESSURE } from './support/budgetSnapshots';

function conversation(): { state: ConversationState; b: Build } {
  const b = new Build('bud');
  const pinned: TextBlock = {
    ...b.text('<ide_selection>pinned code here please keep</ide_selection>', 'ide_selection'),
    meta: { ...b.text('x').meta, source: 'ide_selection', pinned: true },
  };
  const editor = b.text('<ide_opened_file>the user opened src/a.ts</ide_opened_file>', 'ide_opened_file');
  const use = b.toolUse('read_file', { path: 'src/a.ts' });
  const planUse = b.toolUse('update_plan', { steps: [{ step: 'Read a.ts', status: 'in_progress' }] });
  const summary = {
    type: 'summary' as const,
    text: 'Earlier: we discussed the auth bug.',
    meta: { ...b.text('s', 'compactor').meta, compactable: false },
  };
  const state = emptyState({
    system: [
      b.text('You are a coding agent with many rules.', 'system'),
      {
        ...b.text('<project_instructions path="AGENTS.md">Use tabs.</project_instructions>', 'instructions'),
        meta: { ...b.text('i', 'instructions').meta, origin: 'AGENTS.md' },
      },
      b.text('<workspace_facts>Platform: linux</workspace_facts>', 'workspace'),
    ],
    tools: [
      {
        name: 'read_file',
        description: 'Reads a file of the workspace.',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
      },
    ],
    messages: [
      b.message('user', [summary as never], 1),
      b.message('user', [pinned, editor, b.text('What does a.ts do?')], 2),
      b.message('assistant', [b.text('Let me read it.', 'assistant'), use], 2),
      b.message('user', [b.toolResult(use.id, 'export const a = 1; export const b = 2;')], 2),
      b.message('assistant', [planUse], 2),
      b.message('user', [b.toolResult(planUse.id, 'Plan updated: 0 of 1 done; in progress: Read a.ts.')], 2),
      b.message('assistant', [b.text('It exports a and b.', 'assistant')], 2),
    ],
  });
  return { state, b };
}

describe('budget categories', () => {
  it('add up to the ledger total, with every kind in its category', () => {
    const { state } = conversation();
    const tok = countingTokenizer();
    const cal = initialCalibration();
    const c = categoriesOf(state, tok, cal);
    const ledgerTotal = buildLedger(state, [], tok, cal).reduce((a, r) => a + r.tokens, 0);
    assert.equal(c.total, ledgerTotal);
    assert.equal(
      BUDGET_CATEGORIES.reduce((a, k) => a + c.tokens[k], 0),
      ledgerTotal,
    );
    for (const k of BUDGET_CATEGORIES) assert.ok(c.tokens[k] > 0, `${k} has tokens`);
  });

  it('puts pinned blocks in pinned and editor context in editor', () => {
    const { state } = conversation();
    const tok = countingTokenizer();
    const cal = initialCalibration();
    const ledger = buildLedger(state, [], tok, cal);
    const msg = state.messages[1];
    assert.ok(msg);
    const [pinned, editor] = msg.blocks;
    const row = (id: string | undefined) => ledger.find((r) => r.blockId === id)?.tokens ?? -1;
    const c = categoriesOf(state, tok, cal);
    assert.equal(c.tokens.pinned, row(pinned?.meta.id));
    assert.equal(c.tokens.editor, row(editor?.meta.id));
  });

  it('diffs two ledgers by block id', () => {
    const { state } = conversation();
    const tok = countingTokenizer();
    const cal = initialCalibration();
    const before = buildLedger({ ...state, messages: state.messages.slice(0, 3) }, [], tok, cal);
    const after = buildLedger({ ...state, messages: state.messages.slice(1, 5) }, [], tok, cal);
    const d = diffLedgers(before, after);
    assert.equal(d.added.length, 2);
    assert.equal(d.removed.length, 1);
    assert.equal(d.changed.length, 0);
  });

  it('forecasts turns until the soft threshold', () => {
    assert.deepEqual(forecastTurns([1000, 2000, 3000], 10_000), { growthPerTurn: 1000, turns: 7, past: false });
    assert.equal(forecastTurns([12_000], 10_000).past, true);
    assert.equal(forecastTurns([1000], 10_000).turns, undefined);
  });
});

describe('budget protocol', () => {
  it('accepts ready and restore', () => {
    assert.ok(parseBudgetToHost({ type: 'ready' }).ok);
    assert.ok(parseBudgetToHost({ type: 'restore', id: 'cmp_abc1' }).ok);
  });

  it('rejects malformed messages', () => {
    for (const bad of [
      null,
      42,
      'ready',
      {},
      { type: 'nope' },
      { type: 'restore' },
      { type: 'restore', id: 7 },
      { type: 'restore', id: '' },
      { type: 'restore', id: 'a b<script>' },
      { type: 'restore', id: 'x'.repeat(500) },
      { type: 'ready', extra: 1 },
    ]) {
      assert.equal(parseBudgetToHost(bad).ok, false, JSON.stringify(bad));
    }
  });

  it('validates snapshots from the host', () => {
    assert.equal(parseBudgetToWebview({ type: 'snapshot' }).ok, false);
    assert.ok(parseBudgetToWebview({ type: 'empty', reason: 'no session' }).ok);
  });

  it('accepts unpin of a message or a block', () => {
    assert.deepEqual(parseBudgetToHost({ type: 'unpin', kind: 'message', id: 'msg_3' }), {
      ok: true,
      value: { type: 'unpin', kind: 'message', id: 'msg_3' },
    });
    assert.ok(parseBudgetToHost({ type: 'unpin', kind: 'block', id: '2026-11-21T23-59x1.blk_12' }).ok);
  });

  it('rejects malformed unpin messages', () => {
    for (const bad of [
      { type: 'unpin' },
      { type: 'unpin', id: 'msg_3' },
      { type: 'unpin', kind: 'message' },
      { type: 'unpin', kind: 'everything', id: 'msg_3' },
      { type: 'unpin', kind: 'block', id: '' },
      { type: 'unpin', kind: 'block', id: 42 },
      { type: 'unpin', kind: 'block', id: '../../etc' + '/passwd' },
      { type: 'unpin', kind: 'block', id: '<img src=x>' },
      { type: 'unpin', kind: 'block', id: 'b'.repeat(201) },
      { type: 'unpin', kind: 'message', id: 'msg_3', pinned: true },
    ]) {
      assert.equal(parseBudgetToHost(bad).ok, false, JSON.stringify(bad));
    }
  });

  it('validates the pinned regions of a snapshot', () => {
    const snapshot = {
      type: 'snapshot',
      session: 's',
      model: 'm',
      contextWindow: 200_000,
      outputReserve: 32_000,
      softThreshold: 0.7,
      hardThreshold: 0.9,
      pressure: NEUTRAL_PRESSURE,
      categories: [],
      nextTotal: 0,
      nextEstimate: 0,
      calibration: 1,
      tokenizer: 'o200k',
      requests: [],
      subagents: [],
      summariesCostUsd: 0,
      ledger: [],
      compactions: [],
      pinned: [
        { kind: 'message', id: 'msg_1', role: 'user', turn: 1, label: '', preview: 'What does greet do?', tokens: 12 },
        {
          kind: 'block',
          id: 'blk_4',
          role: 'user',
          turn: 2,
          label: 'src/greet.js:1-3',
          preview: 'export function greet(name) {',
          tokens: 30,
        },
      ],
      forecast: { growthPerTurn: 0, past: false, limit: 1000 },
      busy: false,
    };
    assert.ok(parseBudgetToWebview(snapshot).ok);
    // A summary or handoff note of unknown price is null (shown as —), never a string or a guess.
    assert.ok(parseBudgetToWebview({ ...snapshot, summariesCostUsd: null, handoffCostUsd: null }).ok);
    assert.equal(parseBudgetToWebview({ ...snapshot, summariesCostUsd: 'unknown' }).ok, false);
    const { pinned: _dropped, ...withoutPinned } = snapshot;
    assert.equal(parseBudgetToWebview(withoutPinned).ok, false, 'pinned is required');
    assert.equal(
      parseBudgetToWebview({
        ...snapshot,
        pinned: [{ kind: 'region', id: 'x', role: 'user', turn: 1, label: '', preview: '', tokens: 1 }],
      }).ok,
      false,
    );
    assert.equal(
      parseBudgetToWebview({
        ...snapshot,
        pinned: [{ kind: 'block', id: 'x', role: 'system', turn: 1, label: '', preview: '', tokens: 1 }],
      }).ok,
      false,
    );
    assert.equal(
      parseBudgetToWebview({
        ...snapshot,
        pinned: [{ kind: 'block', id: 'x', role: 'user', turn: 1, label: '', preview: '', tokens: '1' }],
      }).ok,
      false,
    );
  });
});
