/**
 * Unseen sessions of the user's own long or many messages (families 12, 16): one paste of
 * 300k characters; one message of four 75k-character blocks (@-mentioned files); long
 * sessions of many ~790-character messages (480 and 950 turns: never cut, never summarised);
 * and Claude Code-style user text — a `<system-reminder>` of 1–3k characters in every other
 * message and bash-mode output (`!cmd`, logged as user text) — over 420 turns.
 */
import type { UnseenCase } from './context';
import { insertionPoint } from './fixtures';
import { messageRecord, type Block } from './records';
import { smallRound } from './session';

const paste: UnseenCase = {
  name: '12-user-paste-300k-chars-sonnet',
  build: (ctx) => {
    const rng = ctx.rng(1201);
    const records = ctx.fixture('sonnet');
    const message = messageRecord('user', [{ type: 'text', text: `Why does this fail?\n${rng.text(300_000, 'log')}` }]);
    records.splice(insertionPoint(records, 100), 0, message);
    return ctx.fill(records);
  },
};

const fourBlocks: UnseenCase = {
  name: '12-user-four-75k-blocks-sonnet',
  build: (ctx) => {
    const rng = ctx.rng(1202);
    const records = ctx.fixture('sonnet');
    const message = messageRecord('user', [
      { type: 'text', text: 'Review these four files:' },
      ...Array.from({ length: 4 }, (_, i) => ({
        type: 'text',
        text: `<file path="src/big${i}.ts">\n${rng.text(75_000)}\n</file>`,
      })),
    ]);
    records.splice(insertionPoint(records, 100), 0, message);
    return ctx.fill(records);
  },
};

/** `turns` user messages of ~790 characters, a small tool round every `roundEvery`, answers of `answerChars`. */
function manyTurns(name: string, seed: number, turns: number, roundEvery: number, answerChars: number): UnseenCase {
  return {
    name,
    build: (ctx) => {
      const rng = ctx.rng(seed);
      const s = ctx.session(rng, { model: 'claude-sonnet-4-5', sys: 6_000 });
      for (let turn = 0; turn < turns; turn++) {
        s.user(rng.text(790, 'prose'));
        if (turn % roundEvery === 0) smallRound(s, rng, 2500);
        s.answer(rng.text(answerChars, 'prose'));
      }
      return s.done();
    },
  };
}

const reminders: UnseenCase = {
  name: '16-claude-code-reminders-420-turns',
  build: (ctx) => {
    const rng = ctx.rng(1601);
    const s = ctx.session(rng, { model: 'claude-sonnet-4-5', sys: 18_000 });
    for (let turn = 0; turn < 420; turn++) {
      const words = rng.pick(['fix it', 'now the tests', 'continue', 'why?', 'ok, next file']);
      const blocks: Block[] = [{ type: 'text', text: `${words} ${rng.ident()}` }];
      if (turn % 2 === 0) {
        const file = rng.ident();
        const changes = rng.text(rng.int(1000, 3000));
        blocks.push({
          type: 'text',
          text: `<system-reminder>\nNote: /repo/src/${file}.ts was modified, either by the user or by a linter. Here are the relevant changes:\n${changes}\n</system-reminder>`,
        });
      }
      if (turn % 5 === 0)
        blocks.push({
          type: 'text',
          text: `<bash-input>npm test</bash-input><bash-stdout>${rng.text(rng.int(1500, 4000), 'log')}</bash-stdout>`,
        });
      s.user(blocks);
      smallRound(s, rng, 2500);
      s.answer(rng.text(300, 'prose'));
    }
    return s.done();
  },
};

/** Families 12 and 16: the user's long pastes and files, long sessions of short messages, Claude Code-style user text. */
export const MESSAGE_CASES: readonly UnseenCase[] = [
  paste,
  fourBlocks,
  manyTurns('12-many-user-turns-790-chars', 1203, 480, 4, 600),
  // The same at a larger scale for the 200k window: 950 turns, ~1,100 requests.
  manyTurns('12-many-user-turns-950', 1204, 950, 6, 300),
  reminders,
];
