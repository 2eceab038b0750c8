/**
 * Unseen sessions of big and many tool results (families 01–03): one huge `cat` result in the
 * middle of each fixture and as the very first round; the same volume as a result of 320
 * small parts with nested parts of other types; rounds of 10, 20 and 30 parallel reads of
 * ~5k tokens each, from scratch and inside the Claude Code session's long turn.
 */
import type { UnseenCase } from './context';
import { insertRound } from './fixtures';
import { WORDS } from './random';
import type { Block } from './records';

const hugeCat: UnseenCase[] = (['sonnet', 'cc', 'pi'] as const).map((k) => ({
  name: `01-huge-cat-150k-${k}`,
  build: (ctx) => {
    // 150k tokens ≈ 600 KB of log in the middle of each fixture.
    const rng = ctx.rng(101);
    const records = ctx.fixture(k);
    const id = rng.toolId();
    const big = rng.text(600_000, 'log');
    insertRound(
      records,
      60,
      [{ type: 'tool_use', id, name: k === 'cc' ? 'Bash' : 'bash', input: { command: 'cat logs/server.log' } }],
      [{ type: 'tool_result', tool_use_id: id, content: big }],
    );
    return ctx.fill(records);
  },
}));

const hugeCatFirst: UnseenCase = {
  name: '01-huge-cat-first-round-cc',
  build: (ctx) => {
    const rng = ctx.rng(102);
    const records = ctx.fixture('cc');
    const id = rng.toolId();
    insertRound(
      records,
      0,
      [{ type: 'tool_use', id, name: 'Bash', input: { command: 'cat dist/bundle.js' } }],
      [{ type: 'tool_result', tool_use_id: id, content: rng.text(650_000, 'code') }],
    );
    return ctx.fill(records);
  },
};

const smallParts: UnseenCase = {
  name: '02-result-of-320-small-parts-sonnet',
  build: (ctx) => {
    // Each part under any per-part limit; nested tool_result / document / search_result parts stand in as text.
    const rng = ctx.rng(201);
    const records = ctx.fixture('sonnet');
    for (const at of [40, 120, 250]) {
      const id = rng.toolId();
      const parts: Block[] = [];
      for (let i = 0; i < 320; i++) parts.push({ type: 'text', text: rng.text(1_900, 'code') });
      parts.push({ type: 'tool_result', tool_use_id: 'nested', content: [{ type: 'text', text: rng.text(1500) }] });
      parts.push({
        type: 'document',
        source: { type: 'text', media_type: 'text/plain', data: rng.text(5000, 'prose') },
      });
      parts.push({ type: 'search_result', source: 'https://x', title: 't', content: [{ type: 'text', text: 'x' }] });
      insertRound(
        records,
        at,
        [{ type: 'tool_use', id, name: 'read_many', input: { paths: ['src/**'] } }],
        [{ type: 'tool_result', tool_use_id: id, content: parts }],
      );
    }
    return ctx.fill(records);
  },
};

const parallel: UnseenCase[] = [10, 20, 30].map((width) => ({
  name: `03-parallel-${width}x5k`,
  build: (ctx) => {
    // Rounds of `width` reads, each result ~5k tokens (20 KB, under the spill size).
    const rng = ctx.rng(300 + width);
    const s = ctx.session(rng, { model: 'claude-sonnet-4-5', sys: 18_000 });
    for (let turn = 0; turn < 12; turn++) {
      s.user(`Turn ${turn}: review every module under src/${rng.pick(WORDS)} and list problems.`);
      for (let r = 0; r < 4; r++)
        s.round(
          Array.from({ length: width }, () => ({
            name: 'Read',
            input: { file_path: `/repo/src/${rng.ident()}.ts` },
            result: rng.text(20_000, 'code'),
          })),
          { text: 'Reading the files in parallel.' },
        );
      s.answer(`Found ${rng.int(1, 9)} problems. ${rng.text(800, 'prose')}`);
    }
    return s.done();
  },
}));

const parallelInCc: UnseenCase = {
  name: '03-parallel-25x5k-in-cc',
  build: (ctx) => {
    // Three rounds of 25 parallel reads inside the Claude Code session's long turn.
    const rng = ctx.rng(330);
    const records = ctx.fixture('cc');
    for (const at of [30, 31, 32]) {
      const calls = Array.from({ length: 25 }, () => ({ id: rng.toolId(), path: `/repo/src/${rng.ident()}.ts` }));
      insertRound(
        records,
        at,
        calls.map((c) => ({ type: 'tool_use', id: c.id, name: 'Read', input: { file_path: c.path } })),
        calls.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: rng.text(20_000, 'code') })),
      );
    }
    return ctx.fill(records);
  },
};

/** Families 01–03: huge tool results, results of many parts, parallel calls. */
export const RESULT_CASES: readonly UnseenCase[] = [...hugeCat, hugeCatFirst, smallParts, ...parallel, parallelInCc];
