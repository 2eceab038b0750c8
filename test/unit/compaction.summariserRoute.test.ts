import { strict as assert } from 'node:assert';
import {
  chooseSummariser,
  describeChoice,
  expectedSummaryTokens,
  type RouteInputs,
} from '../../src/core/compaction/summariserRoute';
import {
  buildMainSummaryRequest,
  mainSummaryInstruction,
  stretchIn,
  stretchOfRequest,
  type MainPrefix,
} from '../../src/core/compaction/mainSummary';
import type { ConversationState } from '../../src/core/conversation/conversationModel';
import { resolveConfig } from '../../src/core/pipeline/config';
import { NBuild, pipeline, refusal, stateOf } from './support/normalizeFixtures';

/** A region of `tokens` with the summary the plan expects of it. */
const region = (tokens: number) => ({ tokens, outputTokens: expectedSummaryTokens(tokens, Math.round(tokens / 5)) });

/** A summarisation of one 150k region out of a 160k prompt, 2k of it not cached yet. */
function inputs(over: Partial<RouteInputs>): RouteInputs {
  return {
    setting: 'auto',
    mainModel: 'claude-opus-4-6',
    smallModel: 'claude-haiku-4-5',
    regions: [region(150_000)],
    promptTokens: 160_000,
    uncachedTokens: 2_000,
    cacheWarm: true,
    cacheTtl: '5m',
    mainContextWindow: 1_000_000,
    mainOutputReserve: 32_000,
    ...over,
  };
}

describe('compaction: the summariser by expected cost', () => {
  it('an Opus main model with a warm cache summarises from its cache: cheaper than Haiku reading the region fresh', () => {
    const c = chooseSummariser(inputs({}));
    assert.equal(c.route, 'main');
    assert.equal(c.model, 'claude-opus-4-6');
    // By hand: 158k cache reads at $0.50, 2k written at $6.25, 900 instruction tokens at $5, 2,550 out (1.7 %) at $25.
    const main = (158_000 * 0.5 + 2_000 * 6.25 + 900 * 5 + 2_550 * 25) / 1e6;
    const small = (150_900 * 1 + 2_550 * 5) / 1e6;
    assert.ok(Math.abs((c.main?.usd ?? 0) - main) < 1e-9, `${c.main?.usd} vs ${main}`);
    assert.ok(Math.abs(c.small.usd - small) < 1e-9);
    assert.equal(
      describeChoice(c),
      'summariser: claude-opus-4-6 from cache, est. $0.1598 vs claude-haiku-4-5 $0.1636',
      'two estimates cents would show alike, at 4 decimals',
    );
    assert.equal(
      describeChoice({ ...c, main: c.main ? { ...c.main, usd: 0.12 } : undefined }),
      'summariser: claude-opus-4-6 from cache, est. $0.12 vs claude-haiku-4-5 $0.16',
    );
    const cents = { ...c, route: 'small' as const, model: 'claude-haiku-4-5', small: { ...c.small, usd: 0.0098 } };
    assert.equal(
      describeChoice({ ...cents, main: c.main ? { ...c.main, usd: 0.0123 } : undefined }),
      'summariser: claude-haiku-4-5, est. $0.0098 vs claude-opus-4-6 from cache $0.0123',
      'both at the precision of the smaller, so they compare',
    );
  });

  it("names the session's cache misses when they priced the main route, and flips the choice once they make it dearer", () => {
    const missing = chooseSummariser(inputs({ cacheMissRate: 0.08 }));
    assert.equal(missing.cacheMissRate, 0.08);
    assert.equal(missing.route, 'small', '8 % of 160k written at $6.25 outweighs the cache reads saved');
    assert.match(
      describeChoice(missing),
      /from cache \$[\d.]+ \(the cache missed 8 % of the reads this session expected\)$/,
    );
    const cold = chooseSummariser(inputs({ cacheMissRate: 0.08, cacheWarm: false }));
    assert.equal(cold.cacheMissRate, undefined, 'a cold cache is priced cold: the rate plays no part');
    assert.doesNotMatch(describeChoice(cold), /missed/);
  });

  it('prices the thinking the main model is measured to spend per answer: each summary request pays it at the output price', () => {
    const plain = chooseSummariser(inputs({}));
    const thinking = chooseSummariser(
      inputs({ mainThinkingTokens: 3_000, regions: [region(150_000), region(20_000)] }),
    );
    const twoPlain = chooseSummariser(inputs({ regions: [region(150_000), region(20_000)] }));
    assert.ok(
      Math.abs((thinking.main?.usd ?? 0) - (twoPlain.main?.usd ?? 0) - (2 * 3_000 * 25) / 1e6) < 1e-9,
      '3 000 thinking tokens at $25 per million, once per request',
    );
    assert.equal(plain.route, 'main');
    assert.equal(
      chooseSummariser(inputs({ mainThinkingTokens: 3_000 })).route,
      'small',
      'the thinking tips the choice',
    );
  });

  it('a cold cache makes the main route a full cache write: Opus, Sonnet and Haiku main models all pick the small one', () => {
    for (const mainModel of ['claude-opus-4-6', 'claude-sonnet-4-6', 'claude-haiku-4-5']) {
      const c = chooseSummariser(inputs({ mainModel, cacheWarm: false }));
      assert.equal(c.route, 'small', mainModel);
      assert.equal(c.model, 'claude-haiku-4-5');
      assert.ok((c.main?.usd ?? 0) > c.small.usd, mainModel);
    }
  });

  it('a second region re-reads the whole prefix from the cache (no second write)', () => {
    const one = chooseSummariser(inputs({ regions: [region(75_000)] }));
    const two = chooseSummariser(inputs({ regions: [region(75_000), region(75_000)] }));
    const second = (160_000 * 0.5 + 900 * 5 + expectedSummaryTokens(75_000, 15_000) * 25) / 1e6;
    assert.ok(Math.abs((two.main?.usd ?? 0) - (one.main?.usd ?? 0) - second) < 1e-9);
  });

  it('the setting wins over the cost: `main` on a cold cache, `small` on a warm one', () => {
    const main = chooseSummariser(inputs({ setting: 'main', mainModel: 'claude-sonnet-4-6', cacheWarm: false }));
    assert.equal(main.route, 'main');
    assert.equal(main.model, 'claude-sonnet-4-6');
    assert.ok(main.main && main.main.usd > main.small.usd, 'both costs are still recorded');
    const small = chooseSummariser(inputs({ setting: 'small' }));
    assert.equal(small.route, 'small');
    assert.ok(small.main && small.main.usd < small.small.usd);
  });

  it('contextPipeline.summarizer resolves to auto, main or small (anything else: auto)', () => {
    const of = (summarizer?: string) => {
      const r = resolveConfig(summarizer === undefined ? {} : { summarizer });
      assert.ok(r.ok);
      return r.config.summarizer;
    };
    assert.deepEqual(
      [of(), of('main'), of('small'), of('auto'), of('opus')],
      ['auto', 'main', 'small', 'auto', 'auto'],
    );
  });

  it('a prompt that would not fit the main model with an answer (or a server strategy) means the small model, even when forced', () => {
    const c = chooseSummariser(inputs({ setting: 'main', mainContextWindow: 190_000 }));
    assert.equal(c.route, 'small');
    assert.equal(c.main, undefined);
    assert.match(c.reason, /would not fit/);
    const server = chooseSummariser(inputs({ setting: 'main', mainUnavailable: 'the server strategy edits it' }));
    assert.equal(server.route, 'small');
    assert.equal(server.main, undefined);
    assert.equal(server.reason, 'the server strategy edits it');
  });
});

/** A conversation with a system prompt, a tool and two turns, then a third in progress. */
function conversation(): { state: ConversationState; b: NBuild } {
  const b = new NBuild('m');
  const use1 = b.toolUse('read_file', { path: 'a.ts' });
  const use2 = b.toolUse('read_file', { path: 'b.ts' });
  const messages = [
    b.user(b.text('Read a.ts')),
    b.assistant(use1),
    b.message('user', [b.toolResult(use1.id, 'const a = 1;\n'.repeat(3_000))], 1),
    b.assistant(b.text('a is 1.', 'assistant')),
    b.user(b.text('Now b.ts')),
    b.assistant(use2),
    b.message('user', [b.toolResult(use2.id, 'const b = 2;\n'.repeat(3_000))], 2),
    b.assistant(b.text('b is 2.', 'assistant')),
    b.user(b.text('And c.ts?')),
  ];
  const state = stateOf(messages, {
    system: [b.text('You are a coding agent.', 'system')],
    tools: [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object' } }],
  });
  return { state, b };
}

function prefixOf(state: ConversationState): MainPrefix {
  const prepared = pipeline().prepare(state);
  return { params: prepared.params, sent: prepared.sent };
}

describe('compaction: the main-model summary request', () => {
  it('is the main request byte for byte with the instruction appended to its last user message, and valid', () => {
    const { state } = conversation();
    const prefix = prefixOf(state);
    const region = {
      firstTurn: 1,
      lastTurn: 1,
      messageIds: state.messages.slice(0, 4).map((m) => m.id),
      tokens: 100,
    };
    const at = stretchIn(prefix, region);
    assert.deepEqual(at, { from: 0, to: 3 });
    const instruction = mainSummaryInstruction({
      from: 0,
      to: 3,
      regionTurns: [1, 1],
      targetTokens: 200,
      maxTokens: 1_000,
    });
    const request = buildMainSummaryRequest(prefix.params, instruction);
    const sent = JSON.stringify(prefix.params);
    const { messages: pm, ...prefixRest } = prefix.params;
    const { messages: rm, ...requestRest } = request;
    assert.equal(JSON.stringify(requestRest), JSON.stringify(prefixRest), 'model, system, tools, max_tokens, thinking');
    assert.equal(JSON.stringify(rm.slice(0, -1)), JSON.stringify(pm.slice(0, -1)), 'every earlier message');
    // A string content is the API's shorthand for one text block; the block form is the same prompt.
    const sentContent = pm.at(-1)?.content ?? [];
    const lastSent = typeof sentContent === 'string' ? [{ type: 'text', text: sentContent }] : sentContent;
    const lastAsked = rm.at(-1)?.content;
    assert.ok(Array.isArray(lastAsked));
    assert.equal(
      JSON.stringify(lastAsked.slice(0, -1)),
      JSON.stringify(lastSent),
      'the last message, breakpoint included',
    );
    assert.deepEqual(lastAsked.at(-1), { type: 'text', text: instruction });
    assert.equal(JSON.stringify(prefix.params), sent, 'the main request itself is left as it was');
    const breakpoints = (s: string) => s.split('"cache_control"').length - 1;
    assert.ok(breakpoints(sent) > 0);
    assert.equal(breakpoints(JSON.stringify(request)), breakpoints(sent), 'the same cache breakpoints');
    assert.equal(refusal(request), undefined);
    assert.deepEqual(stretchOfRequest(request), { from: 1, to: 4 }, 'the instruction names messages 1–4');
  });

  it('a prefix ending in a tool_use gets its tool_result from normalize first, and the request stays valid', () => {
    const { state, b } = conversation();
    const use = b.toolUse('read_file', { path: 'c.ts' });
    const open = { ...state, messages: [...state.messages, b.assistant(use)] };
    const prefix = prefixOf(open);
    const last = prefix.params.messages.at(-1);
    assert.equal(last?.role, 'user');
    assert.ok(Array.isArray(last.content) && last.content[0]?.type === 'tool_result');
    const region = { firstTurn: 1, lastTurn: 2, messageIds: open.messages.slice(0, 8).map((m) => m.id), tokens: 100 };
    const at = stretchIn(prefix, region);
    assert.ok(at);
    const request = buildMainSummaryRequest(
      prefix.params,
      mainSummaryInstruction({ ...at, regionTurns: [1, 2], targetTokens: 200, maxTokens: 1_000 }),
    );
    assert.equal(refusal(request), undefined);
  });

  it("the user's compaction instructions with a lone surrogate still make a valid request", () => {
    const { state } = conversation();
    const prefix = prefixOf(state);
    const at = stretchIn(prefix, {
      firstTurn: 1,
      lastTurn: 1,
      messageIds: state.messages.slice(0, 4).map((m) => m.id),
      tokens: 100,
    });
    assert.ok(at);
    const instruction = mainSummaryInstruction({
      ...at,
      regionTurns: [1, 1],
      targetTokens: 200,
      maxTokens: 1_000,
      instructions: 'keep the \ud800 auth work',
    });
    assert.match(instruction, /keep the \ufffd auth work/);
    assert.equal(refusal(buildMainSummaryRequest(prefix.params, instruction)), undefined);
  });

  it('a region that is not a stretch of the sent messages (or reaches the last one) has no main route', () => {
    const { state } = conversation();
    const prefix = prefixOf(state);
    const ids = state.messages.map((m) => m.id);
    assert.equal(stretchIn(prefix, { firstTurn: 1, lastTurn: 3, messageIds: ids, tokens: 1 }), undefined);
    assert.equal(stretchIn(prefix, { firstTurn: 1, lastTurn: 1, messageIds: ['nope'], tokens: 1 }), undefined);
  });
});
