import { strict as assert } from 'node:assert';
import type { ToolResultInput } from '../../src/core/conversation/assemble';
import type { ToolResultContent } from '../../src/core/conversation/conversationModel';
import { DEFAULT_COMPACTION_SETTINGS, hardTargetTokens } from '../../src/core/compaction/policy';
import {
  guardRound,
  resultContentTokens,
  roundBudgetTokens,
  roundGuardNotice,
  ROUND_MIN_BUDGET_TOKENS,
  ROUND_SUMMARY_ALLOWANCE_TOKENS,
  type RoundGuardOptions,
} from '../../src/core/compaction/roundGuard';
import { guardToolResult, isSpillPreview } from '../../src/core/compaction/toolResultGuard';
import { maskStub } from '../../src/core/compaction/mask';
import { freshMeta } from '../../src/core/compaction/layerContext';
import { TAIL_GUARD_STUB_CHARS } from '../../src/core/compaction/tailGuard';
import { toolItem } from '../../src/host/chat/transcript';
import { parseChatToWebview } from '../../src/protocol/chat';
import { Convo, lines, tokensOf } from './support/compactionBuilders';
import { pngBase64 as pngHeader } from './support/images';

const contentTokens = (c: ToolResultContent): number => resultContentTokens(c, tokensOf);
const opts = (budgetTokens: number, o: Partial<RoundGuardOptions> = {}): RoundGuardOptions => ({
  budgetTokens,
  tokensOf: contentTokens,
  spillDirectory: '/s/tool-results',
  toolName: () => 'read_file',
  ...o,
});
/** `n` results of about `chars` characters each (distinct text), ids toolu_1 … toolu_n. */
const round = (n: number, chars: number): ToolResultInput[] =>
  Array.from({ length: n }, (_, i) => ({
    toolUseId: `toolu_${i + 1}`,
    content: lines(Math.ceil(chars / 41), 40, `r${i + 1}`).slice(0, chars),
  }));
const total = (rs: readonly ToolResultInput[]): number => rs.reduce((n, r) => n + contentTokens(r.content), 0);

describe('compaction guards: round guard', () => {
  it('budgets what the hard target leaves beside the fixed prompt, every user word, pins, the calls and a summary', () => {
    const c = new Convo().user('first question').read('a.ts', lines(400)).say('a.ts answers').user('second');
    c.read('b.ts', lines(50));
    c.messages.pop(); // the calls of the round about to arrive are the last message
    const state = c.state({ contextWindow: 100_000 });
    const fixed = 500;
    const measure = (s: typeof state) => fixed + s.messages.reduce((n, m) => n + tokensOf(m), 0);
    const target = hardTargetTokens(state.config, DEFAULT_COMPACTION_SETTINGS);
    const words = tokensOf({ ...c.messages[0]!, blocks: c.messages[0]!.blocks }) + tokensOf(c.messages[4]!);
    const expected = Math.floor(
      target -
        fixed -
        Math.min(ROUND_SUMMARY_ALLOWANCE_TOKENS, Math.round(0.1 * target)) -
        words -
        tokensOf(c.messages.at(-1)!),
    );
    assert.equal(roundBudgetTokens(state, DEFAULT_COMPACTION_SETTINGS, tokensOf, measure), expected);
    assert.ok(expected > 40_000 && expected < 70_000, `${expected}`);
    // The old read (400 lines) is not subtracted: a compaction can take it; a pinned one cannot.
    const pinned = {
      ...c.messages[2]!,
      blocks: c.messages[2]!.blocks.map((b) => ({ ...b, meta: { ...b.meta, pinned: true } })),
    };
    const withPin = { ...state, messages: state.messages.map((m, i) => (i === 2 ? pinned : m)) };
    assert.equal(
      roundBudgetTokens(withPin, DEFAULT_COMPACTION_SETTINGS, tokensOf, measure),
      expected - tokensOf(pinned),
    );
  });

  it('counts no summary as kept, stacked or rolling (a hard compaction folds stacked ones in when it must)', () => {
    const c = new Convo().user('first question');
    const summary = {
      type: 'summary' as const,
      text: lines(300),
      compactionId: 'cmp_1',
      turnRange: [1, 1] as [number, number],
      meta: { ...c.b.text('').meta, source: 'compactor' as const },
    };
    c.messages.push(c.b.message('user', [summary], 1));
    c.messages.push(c.b.message('assistant', [c.b.text('ok', 'assistant')], 1));
    c.user('next').read('a.ts', lines(10));
    c.messages.pop();
    const state = c.state({ contextWindow: 100_000 });
    const measure = (s: typeof state) => 500 + s.messages.reduce((n, m) => n + tokensOf(m), 0);
    const rolling = roundBudgetTokens(state, DEFAULT_COMPACTION_SETTINGS, tokensOf, measure);
    const stacked = roundBudgetTokens(
      state,
      { ...DEFAULT_COMPACTION_SETTINGS, summaryPolicy: 'stacked' },
      tokensOf,
      measure,
    );
    assert.equal(stacked, rolling);
    assert.ok(tokensOf(c.messages[1]!) > 300, 'the summary is large enough to matter');
  });

  it("counts the user's older long messages as short as the tail guard can cut them, the newest words whole", () => {
    const paste = lines(300, 40, 'p'); // ~12 000 characters of pasted code
    const c = new Convo().user(`first ${paste}`).say('noted').user(`second ${paste}`).read('a.ts', lines(10));
    c.messages.pop();
    const state = c.state({ contextWindow: 100_000 });
    const measure = (s: typeof state) => 500 + s.messages.reduce((n, m) => n + tokensOf(m), 0);
    const budget = roundBudgetTokens(state, DEFAULT_COMPACTION_SETTINGS, tokensOf, measure);
    // Against the same state whose older paste is already cut to the stub: the same budget.
    const first = c.messages[0]!;
    const stubbed = {
      ...state,
      messages: state.messages.map((m, i) =>
        i === 0
          ? {
              ...first,
              id: 'cut',
              blocks: first.blocks.map((b) =>
                b.type === 'text'
                  ? { ...b, text: b.text.slice(0, TAIL_GUARD_STUB_CHARS), meta: { ...freshMeta(b.meta), id: 'cut-b' } }
                  : b,
              ),
            }
          : m,
      ),
    };
    assert.equal(budget, roundBudgetTokens(stubbed, DEFAULT_COMPACTION_SETTINGS, tokensOf, measure));
    // The newest words (the request of this turn) count whole: cutting them would change the budget.
    const newestCut = {
      ...state,
      messages: state.messages.map((m, i) =>
        i === 2
          ? {
              ...m,
              id: 'n',
              blocks: m.blocks.map((b) =>
                b.type === 'text' ? { ...b, text: 'second', meta: { ...freshMeta(b.meta), id: 'nb' } } : b,
              ),
            }
          : m,
      ),
    };
    assert.ok(roundBudgetTokens(newestCut, DEFAULT_COMPACTION_SETTINGS, tokensOf, measure) > budget + 1_000);
  });

  it('never budgets below its minimum, even when the system prompt alone fills the window', () => {
    const state = new Convo().user('hi').state({ contextWindow: 20_000 });
    assert.equal(
      roundBudgetTokens(state, DEFAULT_COMPACTION_SETTINGS, tokensOf, () => 50_000),
      ROUND_MIN_BUDGET_TOKENS,
    );
  });

  it('leaves a round that fits as it is: the same objects, no spill, no notice', () => {
    const rs = round(5, 4_000);
    const g = guardRound(rs, opts(total(rs)));
    assert.deepEqual(g.spills, []);
    assert.ok(g.results.every((r, i) => r === rs[i]));
    assert.equal(roundGuardNotice(g), undefined);
  });

  it('spills the largest results until the round fits, losing nothing', () => {
    const rs = [
      ...round(6, 12_000),
      { toolUseId: 'toolu_small', content: 'ok' },
      ...round(2, 30_000).map((r, i) => ({ ...r, toolUseId: `toolu_big${i}` })),
    ];
    const budget = 12_000;
    assert.ok(total(rs) > 2 * budget);
    const g = guardRound(rs, opts(budget));
    assert.ok(g.tokensAfter <= budget, `${g.tokensAfter} > ${budget}`);
    assert.equal(g.tokensAfter, total(g.results));
    assert.equal(g.tokensBefore, total(rs));
    assert.deepEqual(
      g.results.map((r) => r.toolUseId),
      rs.map((r) => r.toolUseId),
      'same results, same order',
    );
    // The two largest went first.
    assert.deepEqual(
      g.spills.slice(0, 2).map((s) => s.path),
      ['/s/tool-results/tool-toolu_big0.txt', '/s/tool-results/tool-toolu_big1.txt'],
    );
    for (const s of g.spills) {
      const original = rs.find((r) => s.path.endsWith(`tool-${r.toolUseId}.txt`));
      assert.equal(s.content, original?.content, 'the file holds the result whole');
      const shown = g.results.find((r) => r.toolUseId === original?.toolUseId)?.content as string;
      assert.match(
        shown,
        /^\[The read_file result \([\d,]+ characters, .*\) is not shown inline because this round's 9 tool results together \(about [\d,]+ tokens\) are more than the context window leaves for them \(about 12,000 tokens\); it was saved in full to \/s\/tool-results\/tool-toolu_\w+\.txt\./,
      );
      assert.ok(shown.includes((original?.content as string).slice(0, 500)), 'the preview shows its beginning');
    }
    assert.equal(g.results.find((r) => r.toolUseId === 'toolu_small')?.content, 'ok', 'small results are kept');
    assert.ok(g.spilled < rs.length - 1, 'only as many as needed were spilled');
    assert.equal(g.cut, 0);
    assert.match(
      roundGuardNotice(g) ?? '',
      /^This tool round's 9 results came to about [\d,]+ tokens, more than the context window leaves for them: \d+ results saved to files \(a preview and the path stay\), about [\d,]+ tokens now\.$/,
    );
  });

  it("a spill file keeps what the tool returned, before our tags in it were neutralised; the model's preview stays neutralised", () => {
    const rs = round(4, 20_000).map((r) => ({ ...r, content: `&lt;system-reminder>x\n${r.content as string}` }));
    const raw = new Map(rs.map((r) => [r.toolUseId, (r.content as string).replace('&lt;', '<')]));
    const g = guardRound(rs, opts(6_000, { original: (id) => (id === 'toolu_2' ? raw.get(id) : undefined) }));
    assert.ok(g.spills.length >= 2, `${g.spills.length}`);
    for (const s of g.spills) {
      const id = /tool-(toolu_\d+)\.txt$/.exec(s.path)?.[1] as string;
      const given = rs.find((r) => r.toolUseId === id)?.content;
      assert.equal(s.content, id === 'toolu_2' ? raw.get(id) : given, id);
      const shown = g.results.find((r) => r.toolUseId === id)?.content as string;
      assert.ok(shown.includes('&lt;system-reminder>x') && !shown.includes('<system-reminder>'), `${id}: preview`);
    }
    assert.ok(
      g.spills.some((s) => s.path.endsWith('tool-toolu_2.txt')),
      'the largest-first order reached toolu_2',
    );
  });

  it('cuts every result to an equal share when even the previews do not fit, or when spilling is off', () => {
    // Dense text (2 characters a token, as code often is) must fit too: the share is measured, not assumed.
    const dense = (c: ToolResultContent): number => Math.ceil((typeof c === 'string' ? c.length : 0) / 2) + 5;
    for (const [spillDirectory, tokensOf] of [
      ['/s/tool-results', contentTokens],
      ['', contentTokens],
      ['/s/tool-results', dense],
    ] as const) {
      const rs = round(60, 5_000);
      const budget = 10_000;
      const g = guardRound(rs, opts(budget, { spillDirectory, tokensOf }));
      const what = `${spillDirectory || 'no spill'}, ${tokensOf === dense ? 'dense' : 'chars/4'}`;
      assert.ok(g.tokensAfter <= budget, `${what}: ${g.tokensAfter} > ${budget}`);
      assert.equal(
        g.tokensAfter,
        g.results.reduce((n, r) => n + tokensOf(r.content), 0),
      );
      assert.equal(g.cut, 60, what);
      assert.equal(g.spills.length, spillDirectory ? 60 : 0, 'every original is in a file when spilling is on');
      assert.match(
        roundGuardNotice(g) ?? '',
        spillDirectory
          ? /: 60 results saved to files \(a preview and the path stay\) and 60 cut to an equal share, about [\d,]+ tokens now\.$/
          : /: 60 results cut to an equal share, about [\d,]+ tokens now\.$/,
      );
      for (const r of g.results) {
        assert.match(
          r.content as string,
          /cut from the middle of this result, from line [\d,]+: this round's 60 tool results together/,
        );
        assert.equal((r.content as string).match(/cut from the middle/g)?.length, 1, 'one notice, never nested');
      }
    }
  });

  it('treats a result of text parts as text: spilled whole, its parts joined', () => {
    const parts: ToolResultContent = [
      { type: 'text', text: lines(300, 60, 'a') },
      { type: 'text', text: lines(300, 60, 'b') },
    ];
    const rs: ToolResultInput[] = [{ toolUseId: 'toolu_parts', content: parts }, ...round(2, 1_000)];
    const g = guardRound(rs, opts(3_000));
    assert.equal(g.spills.length, 1);
    assert.equal(g.spills[0]?.content, `${lines(300, 60, 'a')}\n${lines(300, 60, 'b')}`);
    assert.ok(typeof g.results[0]?.content === 'string' && isSpillPreview(g.results[0].content));
    assert.ok(g.tokensAfter <= 3_000);
  });

  it('keeps a result with image parts whole while text can make room; past that, leaves out the largest images with a note', () => {
    const shot = (i: number, w: number): ToolResultInput => ({
      toolUseId: `toolu_shot${i}`,
      content: [
        { type: 'text', text: `page ${i}` },
        { type: 'image', mediaType: 'image/png', data: pngHeader(w, 800) },
      ],
    });
    // Text that can make room: the screenshot stays as it is.
    const mixed = [shot(0, 1280), ...round(3, 20_000)];
    const roomy = guardRound(mixed, opts(6_000));
    assert.equal(roomy.results[0], mixed[0]);
    assert.equal(roomy.imagesLeftOut, 0);
    // Eight screenshots (~1,300–1,600 tokens each) where 4,000 tokens are left: the largest go.
    const shots = Array.from({ length: 8 }, (_, i) => shot(i, 600 + 100 * i));
    const g = guardRound(shots, opts(4_000));
    assert.ok(g.tokensAfter <= 4_000, `${g.tokensAfter}`);
    assert.ok(g.imagesLeftOut > 0 && g.imagesLeftOut < 8, `${g.imagesLeftOut}`);
    const leftOut = g.results.filter((r, i) => r !== shots[i]);
    assert.equal(leftOut.length, g.imagesLeftOut);
    assert.ok(
      leftOut.every((r) => /toolu_shot[4-7]/.test(r.toolUseId)),
      'the largest first',
    );
    assert.match(
      JSON.stringify(leftOut[0]?.content),
      /page \d+.*\[Image \(\d+×800 px, about [\d,]+ tokens\) left out: this round's 8 tool results together .*Run the read_file call again on its own if you need it\.\]/,
    );
    assert.equal(g.spills.length, 0, 'an image is never written to a file the model cannot read');
    assert.match(roundGuardNotice(g) ?? '', /: \d images? left out \(a note names each\), about [\d,]+ tokens now\.$/);
  });

  it('a spilled result, alone or by its round, is recognised, and its chat card says it was saved to a file', () => {
    const alone = guardToolResult(lines(1_000, 60), {
      contextWindow: 200_000,
      spillDirectory: '/s',
      fileName: 'tool-a.txt',
      toolName: 'run_command',
    }).content;
    const rs = round(4, 12_000);
    const byRound = guardRound(rs, opts(4_000)).results[0]?.content as string;
    for (const content of [alone, byRound, [{ type: 'text' as const, text: alone }]]) {
      assert.ok(isSpillPreview(content));
      const item = toolItem('toolu_1', 'read_file', { path: 'a.ts' }, { content, isError: false });
      assert.ok(item.kind === 'tool' && item.spilled === true);
      const post = parseChatToWebview({ type: 'upsert', item });
      assert.ok(post.ok, 'the protocol accepts the marker');
    }
    for (const content of [
      lines(40),
      maskStub('read_file a.ts', 900, false),
      '[The plan result is unknown; it was saved in full to nowhere',
    ]) {
      assert.equal(isSpillPreview(content), false, content.slice(0, 60));
      const item = toolItem('toolu_1', 'read_file', { path: 'a.ts' }, { content, isError: false });
      assert.ok(item.kind === 'tool' && item.spilled === undefined);
    }
  });
});
