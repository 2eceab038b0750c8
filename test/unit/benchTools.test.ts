import { strict as assert } from 'node:assert';
import type { Message } from '../../src/core/conversation/conversationModel';
import { initialCalibration } from '../../src/core/tokens/calibration';
import { jsonLine, measureSets, parseToolsArgs, requestFigures, toolLoads } from '../../bench/tools/run';
import { thresholdLines } from '../../bench/tools/thresholds';
import { deferredAt, LOADED_BLOCK_ID, toolRequestModel, withLoadedTools } from '../../bench/tools/toolLoad';
import { serializeTools, toolSearchTool } from '../../src/core/pipeline/serialize';
import { toolBudget } from '../../src/core/pipeline/toolBudget';
import { toolSchemaRawTokens, toolSearchRawTokens } from '../../src/core/tokens/blockTokens';
import { applyCalibration } from '../../src/core/tokens/calibration';
import { planToolLoading } from '../../src/core/tools/toolLoading';
import { ALL_SERVERS, parseCapturedSet, SETS_DIR, toolSets, type CapturedSet } from '../../bench/tools/toolSets';
import { countingTokenizer } from './support/tokenFakes';
import { prepare, toolSession, words } from './support/benchTranscripts';

/** A server's tools: `n` tools whose descriptions grow with `size` words. */
function server(name: string, n: number, size: number): CapturedSet {
  return {
    name,
    package: `@example/${name}`,
    version: '1.0.0',
    tools: Array.from({ length: n }, (_, i) => ({
      name: `tool_${i}`,
      description: words(size * (i + 1), `${name}${i}`),
      inputSchema: { type: 'object' as const, properties: { path: { type: 'string', description: words(size) } } },
    })),
  };
}

const SMALL = server('small', 2, 20);
const LARGE = server('large', 6, 120);
const tokenizer = countingTokenizer();

describe('bench tools: MCP tool sets eager vs deferred', () => {
  it('names each tool mcp__<server>__<tool> and adds the union of every server', () => {
    const sets = toolSets([SMALL, LARGE]);
    assert.deepEqual(
      sets.map((s) => [s.name, s.tools.length]),
      [
        ['small', 2],
        ['large', 6],
        [ALL_SERVERS, 8],
      ],
    );
    assert.equal(sets[0]?.tools[1]?.name, 'mcp__small__tool_1');
    assert.equal(sets[2]?.tools[7]?.server, 'large');
    assert.throws(() => parseCapturedSet('{"name":"x","tools":[]}', 'x.json'), /x\.json: not a captured tool set/);
  });

  it('sends every definition eagerly, or every definition deferred and the search tool; deferred costs less', () => {
    const set = toolSets([SMALL, LARGE])[2]!;
    const m = toolRequestModel(set, tokenizer, initialCalibration(), 3);
    assert.equal(m.eagerTools.length, 8);
    assert.deepEqual(m.deferredTools.at(-1), toolSearchTool('regex'));
    assert.ok(m.deferredTools.slice(0, -1).every((t) => (t as { defer_loading?: boolean }).defer_loading === true));
    assert.ok(m.searchToolTokens > 0, 'the search tool is never priced at zero');
    // The K largest are loaded: the large server's last three.
    assert.deepEqual(
      m.loaded.map((t) => t.name),
      ['mcp__large__tool_5', 'mcp__large__tool_4', 'mcp__large__tool_3'],
    );
    assert.equal(m.deferredTokens, m.searchToolTokens + m.loadedTokens);
    assert.ok(m.deferredTokens < m.eagerTokens, `${m.deferredTokens} < ${m.eagerTokens}`);
    assert.ok(m.loadedTokens < m.eagerTokens);
  });

  it("takes its figures from the core: the plan's tools and the budget panel's tokens", () => {
    const set = toolSets([SMALL, LARGE])[2]!;
    const cal = { ...initialCalibration(), factor: 1.2 };
    const m = toolRequestModel(set, tokenizer, cal, 3);
    const plan = (thresholdTokens: number) =>
      planToolLoading({ offered: set.tools, thresholdTokens, serverToolSearch: true, loaded: new Set(), tokenizer });
    const eager = plan(Number.POSITIVE_INFINITY);
    const deferred = plan(0);
    assert.deepEqual(m.eagerTools, serializeTools(eager.tools));
    assert.deepEqual(m.deferredTools, serializeTools(deferred.tools));
    assert.equal(m.eagerTokens, toolBudget(eager.tools, tokenizer, cal).tokens, 'the panel figure, eager');
    assert.equal(m.searchToolTokens, toolBudget(deferred.tools, tokenizer, cal).tokens, 'the panel figure, deferred');
    const perTool = set.tools.reduce(
      (n, t) => n + Math.round(applyCalibration(cal, { text: toolSchemaRawTokens(t, tokenizer), fixed: 0 })),
      0,
    );
    assert.equal(m.eagerTokens, perTool, 'each definition calibrated and rounded as the panel does');
    assert.equal(
      m.searchToolTokens,
      Math.round(applyCalibration(cal, { text: toolSearchRawTokens(tokenizer), fixed: 0 })),
      "the search tool's definition as the core counts it",
    );
    assert.equal(m.eagerPlan.eagerTokens, eager.eagerTokens);
  });

  it('says which sets each threshold defers, as the plan decides, and what deferring saves', () => {
    const [small, large, all] = toolSets([SMALL, LARGE]);
    const raw = (s: typeof small) =>
      planToolLoading({
        offered: s!.tools,
        thresholdTokens: 0,
        serverToolSearch: true,
        loaded: new Set(),
        tokenizer,
      }).deferredTokens;
    const between = raw(small) + 1;
    assert.ok(between < raw(large), 'the fixture: a threshold between the two servers');
    assert.deepEqual(
      [small, large, all].map((s) => deferredAt(s!, between, tokenizer)),
      [false, true, true],
    );
    const row = (name: string, eager: number, deferred: number) => ({
      name,
      eager_tokens: eager,
      deferred_tokens: deferred,
      searchToolTokens: 20,
      replay_cost_eager: 1,
      replay_cost_deferred: 0.75,
    });
    const lines = thresholdLines(
      [row('small', 100, 150), row('large', 3000, 900), row('all-servers', 3100, 950)],
      [small!, large!, all!],
      tokenizer,
      [0, between, 1e9],
    );
    assert.equal(lines.length, 3);
    assert.match(
      lines[0]!,
      /^Threshold 0: defers small \(saves 80 tok\/request before its first search, −50 after; replay \$0\.25\), large \(/,
    );
    assert.match(
      lines[1]!,
      new RegExp(`^Threshold ${between}: defers large \\(.*\\), all-servers \\(.*\\)\\. Kept eager: small\\.$`),
    );
    assert.equal(lines[2], 'Threshold 1000000000: defers nothing. Kept eager: small, large, all-servers.');
  });

  it('puts the search result before the first tool call, once while the history keeps it', () => {
    const meta = (id: string) => ({
      id,
      source: 'assistant' as const,
      tier: 2 as const,
      createdAt: 5,
      pinned: false,
      compactable: true,
    });
    const call: Message = {
      id: 'm1',
      role: 'assistant',
      turn: 1,
      blocks: [
        { type: 'text', text: 'reading', meta: meta('b1') },
        { type: 'tool_use', id: 'tu1', name: 'read_file', input: {}, meta: meta('b2') },
      ],
    };
    const loaded = withLoadedTools(call, [], 'definitions');
    assert.deepEqual(
      loaded.blocks.map((b) => b.type),
      ['text', 'text', 'tool_use'],
    );
    assert.ok(loaded.blocks[1]?.meta.id.startsWith(LOADED_BLOCK_ID));
    const again = { ...call, id: 'm3' };
    assert.equal(withLoadedTools(again, [loaded], 'definitions'), again, 'not twice');
    assert.equal(withLoadedTools(again, [], 'definitions').blocks.length, 3, 'again after a compaction took it');
  });

  it('replays costs that grow with the tokens added, and prints the documented JSON line', async function () {
    this.timeout(60_000);
    const t = prepare(toolSession(12, 3_000));
    const sets = toolSets([SMALL, LARGE]);
    const loads = toolLoads(sets[2]!, t, 3);
    assert.ok(loads.eager.prefixTokens > loads.deferred.prefixTokens);
    const { rows, baseline } = await measureSets(sets, [t], { window: 100_000, k: 3 }, tokenizer);
    assert.ok(baseline !== null && baseline > 0);
    const [small, large, all] = rows;
    for (const r of rows) {
      assert.ok(r.replay_cost_eager !== null && r.replay_cost_deferred !== null);
      assert.ok(r.replay_cost_eager > baseline, `${r.name}: eager adds cost`);
      assert.ok(r.replay_cost_deferred > baseline, `${r.name}: deferred is not free`);
    }
    assert.ok(small!.replay_cost_eager! < large!.replay_cost_eager!, 'more definitions cost more');
    assert.ok(large!.replay_cost_eager! < all!.replay_cost_eager!);
    assert.ok(all!.replay_cost_deferred! < all!.replay_cost_eager!);
    assert.equal(all!.eager_tokens, requestFigures(sets[2]!, tokenizer, 3).eagerTokens);
    const line = JSON.parse(jsonLine(rows)) as { sets: Record<string, unknown>[] };
    assert.deepEqual(Object.keys(line), ['sets']);
    for (const row of line.sets) {
      assert.deepEqual(Object.keys(row), [
        'name',
        'tools',
        'eager_tokens',
        'deferred_tokens',
        'replay_cost_eager',
        'replay_cost_deferred',
      ]);
      assert.ok(['tools', 'eager_tokens', 'deferred_tokens'].every((k) => typeof row[k] === 'number'));
    }
  });

  it('parses its arguments', () => {
    assert.deepEqual(parseToolsArgs(['--window', '100_000', '--k', '5', 'a']), {
      window: 100_000,
      k: 5,
      setsDir: SETS_DIR,
      dirs: ['a'],
    });
    assert.match((parseToolsArgs(['--window', '10']) as { error: string }).error, /--window/);
    assert.match((parseToolsArgs(['--bogus']) as { error: string }).error, /unknown option/);
  });
});
