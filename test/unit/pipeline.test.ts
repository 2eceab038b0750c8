import { strict as assert } from 'node:assert';
import { applyUserMessage, assembleUserMessage } from '../../src/core/conversation/assemble';
import { appendAssistantMessage } from '../../src/core/conversation/assistant';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { buildLedger } from '../../src/core/pipeline/ledger';
import { MESSAGE_FRAMING } from '../../src/core/tokens/blockTokens';
import type { ConversationState } from '../../src/core/conversation/conversationModel';
import { prepareRequest } from '../../src/core/pipeline/pipeline';
import { makeRequestCounter } from '../../src/core/tokens/requestTokens';
import { agentSystemPrompt } from '../../src/core/projectContext/staticPrompt';
import { TokenEstimator } from '../../src/core/tokens/estimator';
import { Build, emptyState, fakeClock } from './support/builders';
import { countingTokenizer, words } from './support/tokenFakes';

describe('prepareRequest (estimate → anchors → serialize)', () => {
  function session() {
    const clock = fakeClock();
    const b = new Build('pl');
    const deps = { clock, ids: b.ids };
    const tokenizer = countingTokenizer();
    const estimator = new TokenEstimator(tokenizer);
    const count = makeRequestCounter(estimator, tokenizer);
    let state: ConversationState = emptyState({ system: [agentSystemPrompt(deps)] });
    const say = (text: string) => {
      const r = assembleUserMessage(state, { userText: text, pasteDirectory: '/s' }, deps);
      assert.ok(r.ok);
      state = applyUserMessage(state, r.value);
    };
    const answer = (text: string) => {
      const r = appendAssistantMessage(state, [{ type: 'text', text }], deps);
      assert.ok(r.ok);
      state = r.state;
    };
    return {
      clock,
      tokenizer,
      estimator,
      count,
      say,
      answer,
      get state() {
        return state;
      },
    };
  }

  it('produces a valid request whose total is anchored once usage was reported', () => {
    const s = session();
    s.say(words(900));
    const first = prepareRequest(s.state, { count: s.count, clock: s.clock });
    assert.equal(first.tokens.anchored, false);
    s.estimator.observe(s.state, { input_tokens: 1400 });
    s.answer(words(300));
    s.say(words(50));
    const second = prepareRequest(s.state, {
      count: s.count,
      clock: s.clock,
      ...(first.lastBreakpoint ? { previous: first.lastBreakpoint } : {}),
    });
    assert.equal(second.tokens.anchored, true);
    assert.ok(second.tokens.total > 1400, 'anchor plus what was added');
    assert.deepEqual(checkInvariants(s.state), []);
    assert.deepEqual(
      second.params.messages.map((m) => m.role),
      ['user', 'assistant', 'user'],
    );
    const breakpoints = JSON.stringify(second.params).match(/cache_control/g)?.length ?? 0;
    assert.equal(breakpoints, second.anchors.length);
    assert.ok(breakpoints >= 1 && breakpoints <= 4);
  });

  it('counts each block once across turns (incremental)', () => {
    const s = session();
    s.say(words(2000));
    prepareRequest(s.state, { count: s.count, clock: s.clock });
    const afterFirst = s.tokenizer.chars;
    prepareRequest(s.state, { count: s.count, clock: s.clock });
    assert.equal(s.tokenizer.chars, afterFirst, 'nothing is recounted for an unchanged request');
    s.answer('ok');
    s.say('next');
    prepareRequest(s.state, { count: s.count, clock: s.clock });
    assert.equal(s.tokenizer.chars - afterFirst, 'ok'.length + 'next'.length, 'only the new blocks were tokenised');
  });

  it('lists every sent block in the ledger, with the breakpoints where serialize put them', () => {
    const s = session();
    s.say(words(1500));
    const p = prepareRequest(s.state, { count: s.count, clock: s.clock });
    const ledger = buildLedger(s.state, p.anchors, s.tokenizer, s.estimator.calibration);
    assert.deepEqual(
      ledger.map((r) => `${r.role}:${r.kind}`),
      ['system:text', 'user:text'],
    );
    assert.equal(ledger.filter((r) => r.breakpoint).length, p.anchors.length);
    const sum = ledger.reduce((n, r) => n + r.tokens, 0);
    const framing = s.state.messages.length * MESSAGE_FRAMING * s.estimator.calibration.factor;
    const parts = p.tokens.system + p.tokens.messages.reduce((a, b) => a + b, 0);
    assert.ok(
      Math.abs(sum + framing - parts) <= ledger.length,
      `the ledger adds up (± rounding): ${sum} + ${framing} vs ${parts}`,
    );
  });

  it('uses Build ids that never collide with the pipeline (sanity for the fixtures)', () => {
    const b = new Build('x');
    assert.notEqual(b.ids.next('blk'), b.ids.next('blk'));
  });
});
