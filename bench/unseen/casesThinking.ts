/**
 * Unseen sessions of thinking shapes (family 06): answers that are only thinking (an
 * interruption) or only redacted thinking, ~50k-token signed thinking in tool rounds and
 * answers; ~50k-token unsigned thinking (as the pi agent logs it) in the pi session; and
 * ~64k-token signed thinking in six consecutive rounds of one turn (Opus 4.6 at its largest
 * thinking budget); the pi session as Claude Fable 5.1 (preserved thinking, some of it without text).
 */
import type { UnseenCase } from './context';
import type { Block } from './records';
import { smallRound } from './session';

const thinkingOnly: UnseenCase = {
  name: '06-thinking-only-redacted-50k',
  build: (ctx) => {
    const rng = ctx.rng(601);
    const s = ctx.session(rng, { model: 'claude-opus-4-5', sys: 12_000 });
    for (let turn = 0; turn < 25; turn++) {
      s.user(`Task ${turn}: think hard about ${rng.ident()}.`);
      // An answer that is only thinking (interrupted), then the user again; then one only redacted.
      s.usage();
      s.msg('assistant', [{ type: 'thinking', thinking: rng.text(4000, 'prose'), signature: rng.signature() }]);
      s.user('go on');
      s.usage();
      s.msg('assistant', [{ type: 'redacted_thinking', data: Buffer.from(rng.text(6000)).toString('base64') }]);
      s.user('and?');
      for (let r = 0; r < 4; r++)
        s.round([{ name: 'Read', input: { file_path: `/r/${rng.ident()}.ts` }, result: rng.text(4000) }], {
          thinking: turn % 5 === 4 && r === 3 ? rng.text(200_000, 'prose') : rng.text(2000, 'prose'),
        });
      s.answer('Done.', turn % 3 === 0 ? rng.text(100_000, 'prose') : undefined);
    }
    return s.done();
  },
};

const unsignedPi: UnseenCase = {
  name: '06-unsigned-50k-thinking-pi',
  build: (ctx) => {
    // Every 15th thinking block of the pi session becomes 200k characters without a signature.
    const rng = ctx.rng(602);
    const records = ctx.fixture('pi');
    let k = 0;
    for (const r of records) {
      if (r.kind !== 'message' || r.message.role !== 'assistant' || typeof r.message.content === 'string') continue;
      const content: readonly Block[] = r.message.content;
      const th = content.find((b) => b.type === 'thinking');
      if (th && k++ % 15 === 0)
        r.message = {
          ...r.message,
          content: content.map((b) => (b === th ? { type: 'thinking', thinking: rng.text(200_000, 'prose') } : b)),
        };
    }
    return ctx.fill(records);
  },
};

const signedRounds: UnseenCase = {
  name: '06-signed-64k-thinking-rounds',
  build: (ctx) => {
    // 64k-token signed thinking in consecutive rounds of one turn (Opus 4.6, thinking budget 63999).
    const rng = ctx.rng(603);
    const s = ctx.session(rng, { model: 'claude-opus-4-6', sys: 18_000 });
    s.user('Find the race condition. ultrathink');
    for (let r = 0; r < 6; r++)
      s.round([{ name: 'Read', input: { file_path: `/r/${rng.ident()}.ts` }, result: rng.text(8000) }], {
        thinking: rng.text(250_000, 'prose'),
      });
    s.answer('Found it.');
    for (let r = 0; r < 30; r++) smallRound(s, rng);
    s.answer('ok');
    return s.done();
  },
};

const preservedPi: UnseenCase = {
  name: '06-preserved-thinking-fable-pi',
  build: (ctx) => {
    // The pi session as Claude Fable 5.1 logs it: a model that refuses thinking whose prefix changed
    // (preservedThinking.ts), and every third thinking block with empty text (display `omitted`), signed.
    const records = ctx.fixture('pi');
    let k = 0;
    for (const r of records) {
      if (r.kind === 'usage') r.model = 'claude-fable-5-1';
      if (r.kind !== 'message' || r.message.role !== 'assistant' || typeof r.message.content === 'string') continue;
      const content: readonly Block[] = r.message.content;
      r.message = {
        ...r.message,
        content: content.map((b) => (b.type === 'thinking' && k++ % 3 === 0 ? { ...b, thinking: '' } : b)),
      };
    }
    return ctx.fill(records);
  },
};

/** Family 06: thinking-only and redacted answers, huge signed and unsigned thinking, preserved thinking. */
export const THINKING_CASES: readonly UnseenCase[] = [thinkingOnly, unsignedPi, signedRounds, preservedPi];
