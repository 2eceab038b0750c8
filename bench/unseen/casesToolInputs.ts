/**
 * Unseen sessions of big tool inputs (families 11, 14, 15): Writes of ~60k tokens in
 * consecutive rounds, MultiEdits of 60 edits, an input of 30,000 numbers; 30 or 40 parallel
 * Writes each just under the tail guard's per-block minimum; a structured MCP input (a
 * Notion page of 420 blocks, ~50k tokens, within Opus 4.5's 64k output); 25 parallel Writes of
 * ~1.9k tokens each (~47k output tokens) in a scaffolding step.
 */
import type { UnseenCase } from './context';
import { smallRound } from './session';

const hugeInputs: UnseenCase = {
  name: '11-huge-tool-inputs',
  build: (ctx) => {
    const rng = ctx.rng(1101);
    const s = ctx.session(rng, { model: 'claude-sonnet-4-5', sys: 18_000 });
    s.user('Generate the whole data layer in one go.');
    for (let r = 0; r < 5; r++)
      s.round([
        {
          name: 'Write',
          input: { file_path: `/repo/src/gen${r}.ts`, content: rng.text(240_000) },
          result: 'File created successfully',
        },
      ]);
    s.answer('Generated.');
    for (let r = 0; r < 20; r++) smallRound(s, rng);
    s.user('Now edit them.');
    for (let r = 0; r < 3; r++)
      s.round([
        {
          name: 'MultiEdit',
          input: {
            file_path: `/repo/src/gen${r}.ts`,
            edits: Array.from({ length: 60 }, () => ({ old_string: rng.text(1900), new_string: rng.text(1900) })),
          },
          result: 'Applied 60 edits',
        },
      ]);
    s.answer('Edited.');
    s.user('Plot it.');
    s.round([
      {
        name: 'mcp__chart__plot',
        input: { title: 'latency', values: Array.from({ length: 30_000 }, () => rng.int(0, 99999) / 100) },
        result: 'plotted',
      },
    ]);
    s.answer('Plotted.');
    for (let r = 0; r < 10; r++) smallRound(s, rng);
    s.answer('ok');
    return s.done();
  },
};

const parallelWrites: UnseenCase[] = [30, 40].map((n) => ({
  name: `11-parallel-${n}-writes-under-2k-each`,
  build: (ctx) => {
    const rng = ctx.rng(1100 + n);
    const s = ctx.session(rng, { model: 'claude-sonnet-4-5', sys: 18_000 });
    for (let turn = 0; turn < 4; turn++) {
      s.user(`Scaffold package ${turn}.`);
      s.round(
        Array.from({ length: n }, (_, i) => ({
          name: 'Write',
          input: { file_path: `/repo/pkg${turn}/f${i}.ts`, content: rng.text(6_400) },
          result: 'File created successfully',
        })),
        { text: `Creating ${n} files.` },
      );
      for (let r = 0; r < 5; r++) smallRound(s, rng);
      s.answer('Scaffolded.');
    }
    return s.done();
  },
}));

const notion: UnseenCase[] = ['claude-opus-4-5', 'claude-opus-4-6'].map((model) => ({
  name: `14-notion-mcp-50k-structured-input-${model.replace('claude-', '')}`,
  build: (ctx) => {
    // A Notion-style page of 420 short blocks in a Claude Code-sized prompt, then a few small rounds.
    const rng = ctx.rng(1401);
    const s = ctx.session(rng, { model, sys: 18_000 });
    s.user('Write the full design doc for the sync engine into Notion.');
    for (let r = 0; r < 8; r++) smallRound(s, rng, 6000);
    const children = Array.from({ length: 420 }, (_, i) =>
      i % 12 === 0
        ? {
            type: 'heading_2',
            heading_2: { rich_text: [{ type: 'text', text: { content: `${i / 12 + 1}. ${rng.text(60, 'prose')}` } }] },
          }
        : {
            type: 'paragraph',
            paragraph: { rich_text: [{ type: 'text', text: { content: rng.text(380, 'prose') } }] },
          },
    );
    s.round([
      {
        name: 'mcp__notion__notion-create-pages',
        input: {
          parent: { page_id: '1f2e3d4c5b6a' },
          pages: [{ properties: { title: 'Sync engine design' }, children }],
        },
        result: 'Created page https://www.notion.so/Sync-engine-design-1a2b3c',
      },
    ]);
    for (let r = 0; r < 6; r++) smallRound(s, rng, 1500);
    s.answer('The design doc is in Notion.');
    for (let t = 0; t < 6; t++) {
      s.user(`follow-up ${t}`);
      for (let r = 0; r < 4; r++) smallRound(s, rng, 3000);
      s.answer('Done.');
    }
    return s.done();
  },
}));

const scaffold: UnseenCase = {
  name: '15-parallel-25-writes-47k',
  build: (ctx) => {
    const rng = ctx.rng(1501);
    const s = ctx.session(rng, { model: 'claude-sonnet-4-5', sys: 18_000 });
    for (let turn = 0; turn < 4; turn++) {
      s.user(`Scaffold service ${turn} with its tests.`);
      for (let r = 0; r < 6; r++) smallRound(s, rng, 5000);
      s.round(
        Array.from({ length: 25 }, (_, i) => ({
          name: 'Write',
          input: { file_path: `/repo/svc${turn}/f${i}.ts`, content: rng.text(6_400) },
          result: 'File created successfully',
        })),
        { text: 'Creating the files.' },
      );
      for (let r = 0; r < 5; r++) smallRound(s, rng);
      s.answer('Scaffolded.');
    }
    return s.done();
  },
};

/** Families 11, 14 and 15: huge, many-part and structured tool inputs, parallel Writes. */
export const TOOL_INPUT_CASES: readonly UnseenCase[] = [hugeInputs, ...parallelWrites, ...notion, scaffold];
