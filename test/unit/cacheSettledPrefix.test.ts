import { strict as assert } from 'node:assert';
import { planCacheAnchors } from '../../src/core/cache/cacheAnchors';
import { settledThrough } from '../../src/core/cache/settledPrefix';
import { applyMask, maskCandidates } from '../../src/core/compaction/mask';
import { planCompaction } from '../../src/core/compaction/plan';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import { STALE_PREFIX } from '../../src/core/conversation/resultPlaceholders';
import { buildLedger } from '../../src/core/pipeline/ledger';
import { prepareRequest, type PreparedRequest } from '../../src/core/pipeline/pipeline';
import { initialCalibration } from '../../src/core/tokens/calibration';
import { chars4Tokenizer } from '../../src/core/tokens/chars4';
import { TokenEstimator } from '../../src/core/tokens/estimator';
import { makeRequestCounter } from '../../src/core/tokens/requestTokens';
import { PromptCache } from '../fake-anthropic/promptCache';
import { layoutPrompt } from '../fake-anthropic/promptLayout';
import type { ApiRequest } from '../fake-anthropic/request';
import { fakeClock, testConfig } from './support/builders';
import { layerCtx } from './support/compactionBuilders';
import { Convo, tokensOf } from './support/compactionFixtures';

/** `turns` turns, each two reads of `resultChars` and a short answer (results of turns listed in `small` are tiny). */
function convo(turns: number, resultChars: number, small: readonly number[] = []): Convo {
  const c = new Convo('sp');
  for (let t = 1; t <= turns; t++)
    c.add({
      user: `Part ${t}`,
      tools: [0, 1].map((i) => ({
        name: 'Read',
        input: { file_path: `src/p${t}/f${i}.ts` },
        result: small.includes(t) ? `ok ${t}.${i}` : `${t}.${i}: ${'x'.repeat(resultChars)}`,
      })),
      answer: `Answer ${t}. ${'y'.repeat(small.includes(t) ? 6_000 : 200)}`,
    });
  return c;
}

/** The first `turns` turns of `c`, with the results of turns up to `maskedThrough` masked. */
function view(c: Convo, turns: number, maskedThrough: number): ConversationState {
  const messages = c.messages.filter((m) => m.turn <= turns);
  const state = c.state({
    messages,
    system: [{ type: 'text', text: 'You are a coding agent. '.repeat(400), meta: systemMeta }],
  });
  const protect = messages.findIndex((m) => m.turn > maskedThrough);
  const candidates = maskCandidates(messages, protect < 0 ? messages.length : protect, tokensOf);
  return candidates.length > 0 ? applyMask(state, layerCtx(0.5), candidates).state : state;
}
const systemMeta = { id: 'sys', tier: 0, source: 'system', createdAt: 0, pinned: true, compactable: false } as const;

describe('the settled prefix: what compactions have changed keeps a breakpoint (core/cache/settledPrefix.ts)', () => {
  it('ends at the last message a compaction marked, never at the newest message', () => {
    const c = convo(6, 4_000);
    assert.equal(settledThrough(view(c, 6, 0).messages), -1, 'nothing compacted yet');
    const masked = view(c, 6, 3).messages;
    const lastOf = (ms: readonly Message[], ok: (m: Message) => boolean) =>
      ms.reduce((last, m, i) => (ok(m) ? i : last), -1);
    const lastMasked = lastOf(masked, (m) => m.turn === 3 && m.role === 'user');
    assert.equal(settledThrough(masked), lastMasked);
    // Snip's stale marks ride along in a kept tail: they do not move the end.
    const staleAt = masked.length - 2;
    const withStale = masked.map((m, i) =>
      i !== staleAt
        ? m
        : {
            ...m,
            blocks: m.blocks.map((b) =>
              b.type === 'tool_result' ? { ...b, content: `${STALE_PREFIX}read again later]` } : b,
            ),
          },
    );
    assert.ok(withStale[staleAt]?.blocks.some((b) => b.type === 'tool_result'));
    assert.equal(settledThrough(withStale), lastMasked);
    // The newest message is never the end: the one before it holding a mark is.
    const upTo = masked.slice(0, lastMasked + 1);
    assert.equal(
      settledThrough(upTo),
      lastOf(upTo.slice(0, -1), (m) => m.turn <= 3 && m.role === 'user' && m.blocks[0]?.type === 'tool_result'),
    );
  });

  it('a second mask reads the first one back from the cache instead of writing everything after the system prompt', () => {
    const c = convo(14, 8_000);
    const clock = fakeClock();
    const cache = new PromptCache(() => clock.now());
    const count = makeRequestCounter(new TokenEstimator(chars4Tokenizer), chars4Tokenizer);
    let previous: PreparedRequest['lastBreakpoint'];
    const send = (state: ConversationState) => {
      clock.advance(10_000);
      const prepared = prepareRequest(state, { count, clock, ...(previous ? { previous } : {}) });
      previous = prepared.lastBreakpoint;
      const layout = layoutPrompt(JSON.parse(JSON.stringify(prepared.params)) as ApiRequest);
      return { prepared, layout, usage: cache.process(prepared.params.model, layout, 1024) };
    };
    send(view(c, 10, 0));
    const first = send(view(c, 11, 4)); // the first mask changes the very first result: only the system is read
    const marked = first.prepared.anchors.find((a) => /settled prefix/.test(a.reason));
    assert.ok(marked, 'the end of what the mask changed is a breakpoint');
    assert.ok(first.prepared.lastBreakpoint?.settled, 'and the next request is told where it is');
    // The ledger says why each breakpoint is where it is.
    const ledger = buildLedger(first.prepared.sent, first.prepared.anchors, chars4Tokenizer, initialCalibration());
    const wheres = ledger.flatMap((r) => (r.ttl?.where ? [r.ttl.where] : []));
    assert.equal(wheres.length, first.prepared.anchors.length);
    assert.ok(
      wheres.some((w) => /end of the settled prefix/.test(w)),
      wheres.join(' | '),
    );
    send(view(c, 12, 4));
    const second = send(view(c, 13, 8));
    // What the first mask settled (the system prompt and turns 1–4) is read; before, only the system prompt was.
    const through = settledThrough(view(c, 12, 4).messages);
    const settledBlocks = view(c, 12, 4)
      .messages.slice(0, through + 1)
      .reduce((n, m) => n + m.blocks.length, 0);
    const systemBlocks =
      first.layout.blocks.length - first.prepared.params.messages.reduce((n, m) => n + m.content.length, 0);
    const settledTokens = first.layout.blocks.slice(0, systemBlocks + settledBlocks).reduce((n, b) => n + b.tokens, 0);
    const systemTokens = first.layout.blocks.slice(0, systemBlocks).reduce((n, b) => n + b.tokens, 0);
    assert.equal(first.usage.cache_read_input_tokens, systemTokens);
    assert.ok(settledTokens > systemTokens + 500);
    assert.equal(second.usage.cache_read_input_tokens, settledTokens);
  });

  it('the plan prices an edit as rewriting everything after the settled prefix, not after its own first change', () => {
    // Turns 1–4 hold tiny results and long answers: the first result worth masking is deep in.
    const state = (s: ConversationState) => ({
      ...s,
      config: testConfig({
        contextWindow: 200_000,
        outputReserve: 10_000,
        keepRecentTurns: 0,
        keepRecentTokens: 2_000,
      }),
    });
    const c = convo(16, 12_000, [1, 2, 3, 4]);
    const before = state(view(c, 12, 0));
    const plan = (s: ConversationState) =>
      planCompaction(s, {
        tokensOf,
        fixedTokens: 5_000,
        settings: DEFAULT_COMPACTION_SETTINGS,
        cacheWarm: true,
        mode: 'auto',
        growthPerRequest: 500,
      });
    const p = plan(before);
    assert.equal(p.action, 'mask', p.reason);
    const all = before.messages.reduce((n, m) => n + tokensOf(m), 0);
    // Nothing is settled: the whole conversation after the system prompt is written again.
    assert.equal(p.rewriteTokens, all - p.expectedSaving);
    assert.ok(p.firstChangedIndex > 8, `${p.firstChangedIndex}`);
    // After a mask of turns 5–8, the next edit rewrites from the end of what that mask settled.
    const after = state(view(c, 16, 8));
    const settled = settledThrough(after.messages);
    const q = plan(after);
    assert.equal(q.action, 'mask', q.reason);
    assert.ok(q.firstChangedIndex > settled + 1, `${q.firstChangedIndex} after ${settled}`);
    const rest = after.messages.slice(settled + 1).reduce((n, m) => n + tokensOf(m), 0);
    assert.equal(q.rewriteTokens, rest - q.expectedSaving);
  });

  it('one breakpoint a place, at most four: the settled end on the 1-hour checkpoint is one mark', () => {
    const n = 40;
    const messages = Array.from({ length: n }, (_, i) => ({ id: `m${i}`, tokens: 1_000, blocks: 1 }));
    const anchors = planCacheAnchors({
      toolsTokens: 4_000,
      systemTokens: 6_000,
      messages,
      minCacheableTokens: 1024,
      now: 10_000_000,
      settledIndex: 9,
      previous: {
        messageId: 'm30',
        sentAt: 10_000_000 - 20 * 60_000,
        ttl: '5m',
        prefixTokens: 41_000,
        checkpoint: {
          messageId: 'm9',
          index: 9,
          firstId: 'm0',
          sentAt: 10_000_000 - 20 * 60_000,
          prefixTokens: 20_000,
        },
        settled: {
          messageId: 'm9',
          index: 9,
          firstId: 'm0',
          sentAt: 10_000_000 - 60_000,
          prefixTokens: 20_000,
          ttl: '5m',
        },
      },
    });
    const places = anchors.map((a) => (a.target.at === 'message' ? a.target.messageIndex : a.target.at));
    assert.equal(new Set(places).size, places.length, places.join(','));
    assert.ok(anchors.length <= 4);
    assert.ok(places.includes(9) && places.includes(n - 1), places.join(','));
  });
});
