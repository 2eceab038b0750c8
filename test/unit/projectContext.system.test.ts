import { strict as assert } from 'node:assert';
import { BUDGET_CATEGORIES, CATEGORY_LABELS, categoriesOf, categoryOf } from '../../src/core/pipeline/budget';
import { assembleUserMessage } from '../../src/core/conversation/assemble';
import { buildLedger } from '../../src/core/pipeline/ledger';
import type { TextBlock } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { prepareRequest } from '../../src/core/pipeline/pipeline';
import { makeRequestCounter } from '../../src/core/tokens/requestTokens';
import { agentSystemPrompt } from '../../src/core/projectContext/staticPrompt';
import { renderInstructionBlocks } from '../../src/core/projectContext/instructions';
import {
  describeProjectContextChange,
  diffProjectContext,
  withProjectContext,
} from '../../src/core/projectContext/system';
import { renderWorkspaceFacts } from '../../src/core/projectContext/workspaceFacts';
import { initialCalibration } from '../../src/core/tokens/calibration';
import { TokenEstimator } from '../../src/core/tokens/estimator';
import { parseBudgetToWebview } from '../../src/protocol/budget';
import { Build, emptyState, fakeClock, testConfig } from './support/builders';
import { countingTokenizer, words } from './support/tokenFakes';
import { NEUTRAL_PRESSURE } from './support/budgetSnapshots';

const deps = () => ({ clock: fakeClock(), ids: counterIds('pc') });

describe('project context: system order and the cache breakpoint', () => {
  function system() {
    const d = deps();
    const stat = agentSystemPrompt(d);
    const ins = renderInstructionBlocks(
      [
        { origin: 'AGENTS.md', text: words(900) },
        { origin: 'CLAUDE.md', text: words(700) },
      ],
      { maxTokens: 8000, tokenizer: countingTokenizer() },
      d,
    ).blocks;
    const facts = renderWorkspaceFacts(
      { folders: ['app'], platform: 'linux', date: '2026-01-01', repositories: [] },
      d,
    );
    return { stat, ins, facts };
  }

  it('orders static prompt, instructions, facts — whatever order the project blocks come in', () => {
    const { stat, ins, facts } = system();
    const s = withProjectContext([stat], [facts, ...ins]);
    assert.deepEqual(
      s.map((b) => b.meta.source),
      ['system', 'instructions', 'instructions', 'workspace'],
    );
    assert.deepEqual(
      withProjectContext(s, []).map((b) => b.meta.source),
      ['system'],
      'replacing drops the old project blocks',
    );
  });

  it('puts the system breakpoint on the last system block, its prefix covering them all', () => {
    const { stat, ins, facts } = system();
    const b = new Build('bp');
    const tokenizer = countingTokenizer();
    const estimator = new TokenEstimator(tokenizer);
    const base = emptyState({
      system: withProjectContext([stat], [...ins, facts]),
      config: testConfig({ minCacheableTokens: 100 }),
    });
    const assembled = assembleUserMessage(
      base,
      { userText: 'hello', pasteDirectory: '/s' },
      { clock: fakeClock(), ids: b.ids },
    );
    assert.ok(assembled.ok);
    const state = { ...base, messages: [assembled.value.message] };
    const p = prepareRequest(state, { count: makeRequestCounter(estimator, tokenizer), clock: fakeClock() });
    const sys = p.params.system as Array<{ text: string; cache_control?: unknown }>;
    assert.equal(sys.length, 4);
    assert.deepEqual(
      sys.map((x) => x.cache_control !== undefined),
      [false, false, false, true],
    );
    const anchor = p.anchors.find((a) => a.target.at === 'system');
    assert.ok(anchor, 'a system breakpoint was placed');
    assert.equal(anchor.prefixTokens, p.tokens.tools + p.tokens.system);
    const ledger = buildLedger(p.sent, p.anchors, tokenizer, estimator.calibration);
    const sysRows = ledger.filter((r) => r.role === 'system');
    // The ledger rounds each row; the anchor covers every system block (within that rounding).
    assert.ok(anchor.prefixTokens >= sysRows.reduce((a, r) => a + r.tokens, 0) - sysRows.length);
    assert.ok(sysRows.every((r) => r.tokens > 0));
    assert.deepEqual(
      sysRows.map((r) => r.breakpoint),
      [false, false, false, true],
    );
    assert.deepEqual(
      sysRows.map((r) => r.origin),
      [undefined, 'AGENTS.md', 'CLAUDE.md', undefined],
    );
  });
});

describe('project context: reload diff', () => {
  it('names files added, removed and changed with token deltas, and whether the facts changed', () => {
    const tok = countingTokenizer();
    const d = deps();
    const before = [
      ...renderInstructionBlocks(
        [
          { origin: 'AGENTS.md', text: 'a b c' },
          { origin: 'CLAUDE.md', text: 'x' },
        ],
        { maxTokens: 100, tokenizer: tok },
        d,
      ).blocks,
      renderWorkspaceFacts({ folders: ['a'], platform: 'linux', date: '2026-01-01', repositories: [] }, d),
    ];
    const same = [
      ...renderInstructionBlocks(
        [
          { origin: 'AGENTS.md', text: 'a b c' },
          { origin: 'CLAUDE.md', text: 'x' },
        ],
        { maxTokens: 100, tokenizer: tok },
        d,
      ).blocks,
      renderWorkspaceFacts({ folders: ['a'], platform: 'linux', date: '2026-01-01', repositories: [] }, d),
    ];
    assert.equal(
      describeProjectContextChange(diffProjectContext(before, same, tok)),
      'Project context reloaded: nothing changed.',
    );
    const after = [
      ...renderInstructionBlocks(
        [
          { origin: 'AGENTS.md', text: 'a b c d e' },
          { origin: 'CLAUDE.local.md', text: 'y z' },
        ],
        { maxTokens: 100, tokenizer: tok },
        d,
      ).blocks,
      renderWorkspaceFacts({ folders: ['a'], platform: 'linux', date: '2026-01-02', repositories: [] }, d),
    ];
    const c = diffProjectContext(before, after, tok);
    assert.deepEqual(
      c.added.map((f) => f.origin),
      ['CLAUDE.local.md'],
    );
    assert.deepEqual(
      c.removed.map((f) => f.origin),
      ['CLAUDE.md'],
    );
    assert.deepEqual(
      c.changed.map((f) => [f.origin, f.after - f.before]),
      [['AGENTS.md', 2]],
    );
    assert.equal(c.factsChanged, true);
    assert.match(
      describeProjectContextChange(c),
      /^Project context reloaded: CLAUDE\.local\.md added \(\+\d+ tokens\); CLAUDE\.md removed \(−\d+ tokens\); AGENTS\.md changed \(\d+ → \d+ tokens, \+2\); workspace facts changed\.$/,
    );
  });
});

describe('project context: budget categories', () => {
  it('has Instructions and Workspace right after System', () => {
    assert.deepEqual(BUDGET_CATEGORIES.slice(0, 4), ['system', 'instructions', 'workspace', 'tools']);
    assert.equal(CATEGORY_LABELS.instructions, 'Instructions');
    assert.equal(CATEGORY_LABELS.workspace, 'Workspace');
  });

  it('classifies system rows by their block source, and nested instruction reminders as Instructions', () => {
    const d = deps();
    const stat = agentSystemPrompt(d);
    const [ins] = renderInstructionBlocks(
      [{ origin: 'AGENTS.md', text: 'rule one' }],
      { maxTokens: 100, tokenizer: countingTokenizer() },
      d,
    ).blocks;
    const facts = renderWorkspaceFacts({ folders: ['a'], platform: 'linux', date: '2026-01-01', repositories: [] }, d);
    assert.equal(categoryOf({ role: 'system' }, stat), 'system');
    assert.equal(categoryOf({ role: 'system' }, ins), 'instructions');
    assert.equal(categoryOf({ role: 'system' }, facts), 'workspace');
    const b = new Build('cat');
    const nested = {
      ...b.text('<system-reminder>…</system-reminder>', 'reminder'),
      meta: { ...b.text('x', 'reminder').meta, origin: 'src/AGENTS.md' },
    };
    assert.equal(categoryOf({ role: 'user' }, nested), 'instructions');
    assert.equal(categoryOf({ role: 'user' }, b.text('<system-reminder>plain</system-reminder>', 'reminder')), 'user');
    const state = emptyState({ system: [stat, ins as TextBlock, facts] });
    const totals = categoriesOf(state, countingTokenizer(), initialCalibration());
    assert.ok(totals.tokens.system > 0 && totals.tokens.instructions > 0 && totals.tokens.workspace > 0);
    assert.equal(totals.tokens.system + totals.tokens.instructions + totals.tokens.workspace, totals.total);
  });

  it('the budget protocol carries a ledger row origin', () => {
    const snapshot = {
      type: 'snapshot',
      session: 's',
      model: 'm',
      contextWindow: 1,
      outputReserve: 0,
      softThreshold: 0.7,
      hardThreshold: 0.9,
      pressure: NEUTRAL_PRESSURE,
      categories: [{ id: 'instructions', label: 'Instructions', tokens: 3 }],
      nextTotal: 3,
      nextEstimate: 3,
      calibration: 1,
      tokenizer: 't',
      requests: [],
      subagents: [],
      summariesCostUsd: 0,
      ledger: [
        {
          position: 1,
          role: 'system',
          kind: 'text',
          source: 'instructions',
          origin: 'AGENTS.md',
          tokens: 3,
          breakpoint: true,
          preview: 'x',
        },
      ],
      compactions: [],
      pinned: [],
      forecast: { growthPerTurn: 0, past: false, limit: 1 },
      busy: false,
    };
    const r = parseBudgetToWebview(snapshot);
    assert.ok(r.ok);
  });
});
