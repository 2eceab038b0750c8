/** Builders and checks for the tests of the cheap compaction layers (guards). */
import { strict as assert } from 'node:assert';
import type { LayerContext, LayerResult } from '../../../src/core/compaction/layerContext';
import { restoreRecord } from '../../../src/core/compaction/apply';
import type { LlmClient } from '../../../src/core/llm/llmClient';
import { Compactor } from '../../../src/core/compaction/compactor';
import type { CompactorDeps } from '../../../src/core/compaction/compactorRuns';
import { DEFAULT_COMPACTION_SETTINGS } from '../../../src/core/compaction/policy';
import { checkInvariants } from '../../../src/core/conversation/invariants';
import type {
  ConversationState,
  Message,
  PipelineConfig,
  ToolResultBlock,
  ToolResultContent,
} from '../../../src/core/conversation/conversationModel';
import { counterIds } from '../../../src/core/platform/platformPorts';
import { chars4Tokenizer } from '../../../src/core/tokens/chars4';
import { blockRawTokens, messageRawTokens } from '../../../src/core/tokens/blockTokens';
import { Build, emptyState, fakeClock, testConfig } from './builders';

/** Options of one tool call in a conversation under construction. */
export interface CallOptions {
  readonly isError?: boolean;
  readonly pinned?: boolean;
  readonly pinUse?: boolean;
}

/** Builds a well-formed conversation: user words, tool rounds, assistant answers. */
export class Convo {
  readonly b = new Build('c');
  readonly messages: Message[] = [];
  private turn = 0;

  /** A user message with the user's words; starts a new turn. */
  user(text = `question ${this.turn + 1}`): this {
    this.turn++;
    this.messages.push(this.b.message('user', [this.b.text(text)], this.turn));
    return this;
  }

  /** One tool round: an assistant message with one tool_use and a user message with its result. */
  call(name: string, input: Record<string, unknown>, content: ToolResultContent, opts: CallOptions = {}): this {
    const use = this.b.toolUse(name, input);
    const pinnedUse = opts.pinUse ? { ...use, meta: { ...use.meta, pinned: true } } : use;
    const base = this.b.toolResult(use.id, '');
    const result: ToolResultBlock = {
      ...base,
      content,
      ...(opts.isError ? { isError: true } : {}),
      meta: { ...base.meta, pinned: opts.pinned ?? false },
    };
    this.messages.push(this.b.message('assistant', [pinnedUse], this.turn));
    this.messages.push(this.b.message('user', [result], this.turn));
    return this;
  }

  /** A read_file round of `path` returning `content`. */
  read(path: string, content: string, extra: Record<string, unknown> = {}, opts: CallOptions = {}): this {
    return this.call('read_file', { path, ...extra }, content, opts);
  }

  /** An assistant answer in text. */
  say(text = 'done'): this {
    this.messages.push(this.b.message('assistant', [this.b.text(text, 'assistant')], this.turn));
    return this;
  }

  /** The conversation as a state. */
  state(config: Partial<PipelineConfig> = {}): ConversationState {
    return emptyState({ messages: [...this.messages], config: testConfig(config) });
  }
}

/** Calibrated tokens of a message in the tests: chars/4, memoised on the blocks like the real counter. */
export function tokensOf(m: Message): number {
  const raw = messageRawTokens(m, chars4Tokenizer);
  return raw.text + raw.fixed;
}

/**
 * A compactor over `summariser` with the tests' defaults — fake clock, ids `s…`, {@link tokensOf},
 * a prompt of 500 tokens plus its messages, the default settings, a timeout that never fires
 * — each replaced by `over`.
 */
export function testCompactor(summariser: LlmClient, over: Partial<CompactorDeps> = {}): Compactor {
  return new Compactor({
    summariser,
    clock: fakeClock(),
    ids: counterIds('s'),
    tokensOf,
    measure: (s) => 500 + s.messages.reduce((n, m) => n + tokensOf(m), 0),
    settings: () => DEFAULT_COMPACTION_SETTINGS,
    timeout: () => new Promise(() => undefined),
    ...over,
  });
}

/** A layer context at `utilisation`, with fake clock and ids. */
export function layerCtx(utilisation: number, extra: Partial<LayerContext> = {}): LayerContext {
  return { utilisation, tokensOf, clock: fakeClock(), ids: counterIds('g'), ...extra };
}

/** `n` lines of `width` characters (line numbers first), joined by newlines. */
export function lines(n: number, width = 40, prefix = 'line'): string {
  return Array.from({ length: n }, (_, i) => `${prefix} ${i + 1} `.padEnd(width, 'x')).join('\n');
}

/** The tool_result blocks of a state, in order. */
export function results(state: ConversationState): ToolResultBlock[] {
  return state.messages.flatMap((m) => m.blocks.filter((b): b is ToolResultBlock => b.type === 'tool_result'));
}

/** String content of a result (fails on array content). */
export function text(block: ToolResultBlock | undefined): string {
  assert.ok(block && typeof block.content === 'string');
  return block.content;
}

/**
 * Checks a layer result that changed something: invariants hold; one record with the layer's
 * fields; originals are the same objects as in `before`, contiguous, first and last changed;
 * replacement keeps ids; messages outside the range are the same objects; changed blocks keep
 * their meta id but carry no stale tokenCount; restoring gives back exactly `before`.
 */
export function assertReversible(before: ConversationState, r: LayerResult, layer: string, trigger: string): void {
  const rec = r.record;
  assert.ok(rec, 'a record');
  assert.deepEqual(checkInvariants(r.state, { allowPendingToolUse: false }), []);
  assert.equal(rec.layer, layer);
  assert.equal(rec.trigger, trigger);
  assert.equal(rec.strategy, 'guards');
  assert.equal(rec.costUsd, 0);
  assert.equal(rec.durationMs, 0);
  assert.deepEqual(rec.fallbacks, []);
  assert.ok(rec.tokensAfter < rec.tokensBefore, `${rec.tokensAfter} < ${rec.tokensBefore}`);
  const start = before.messages.indexOf(rec.originals[0] as Message);
  assert.ok(start >= 0);
  rec.originals.forEach((m, i) => assert.equal(m, before.messages[start + i], 'originals are the state objects'));
  assert.notEqual(rec.replacement[0], rec.originals[0], 'the first message changed');
  assert.notEqual(rec.replacement.at(-1), rec.originals.at(-1), 'the last message changed');
  assert.deepEqual(
    rec.replacement.map((m) => m.id),
    rec.originals.map((m) => m.id),
  );
  assert.deepEqual(
    rec.regions.flatMap((g) => g.messageIds),
    rec.originals.filter((m, i) => rec.replacement[i] !== m).map((m) => m.id),
  );
  r.state.messages.forEach((m, i) => {
    if (i < start || i >= start + rec.originals.length)
      assert.equal(m, before.messages[i], 'outside the range: same objects');
  });
  rec.replacement.forEach((m, i) => {
    const o = rec.originals[i] as Message;
    m.blocks.forEach((blk, j) => {
      const ob = o.blocks[j];
      assert.ok(ob);
      assert.equal(blk.meta.id, ob.meta.id);
      if (blk !== ob) {
        assert.equal(blk.type, 'tool_result');
        assert.notEqual(blk.meta, ob.meta);
        const fresh = blockRawTokens(
          { ...blk, meta: { ...blk.meta, tokenCount: undefined } } as ToolResultBlock,
          chars4Tokenizer,
        );
        assert.equal(blk.meta.tokenCount, fresh, 'no stale tokenCount memo');
        if (blk.type === 'tool_result' && ob.type === 'tool_result') assert.equal(blk.isError, ob.isError);
      }
    });
  });
  const restored = restoreRecord(r.state, rec);
  assert.ok(restored.ok);
  assert.deepEqual(restored.state.messages, before.messages);
  restored.state.messages.forEach((m, i) => assert.equal(m, before.messages[i]));
}
