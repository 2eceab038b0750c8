import { strict as assert } from 'node:assert';
import { applyMask, maskCandidates } from '../../src/core/compaction/mask';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import { isReattachReminder } from '../../src/core/compaction/reattach';
import type { Message } from '../../src/core/conversation/conversationModel';
import { summaryText } from '../../src/core/compaction/summaryReplacement';
import { counterIds } from '../../src/core/platform/platformPorts';
import { previewSentence } from '../../src/host/compactionPreviewText';
import { turnRangeLabel, turnRangeText } from '../../src/host/compactionRowText';
import { transcriptOf } from '../../src/host/chat/transcript';
import { parseChatToWebview } from '../../src/protocol/chat';
import { summaryTitle } from '../../src/webview/chat/summaryTitle';
import { Build } from './support/builders';
import { Convo, layerCtx, lines, testCompactor, tokensOf } from './support/compactionBuilders';
import { ScriptedLlm } from './support/scriptedLlm';

describe('how compaction reads in the chat and in Compact Now', () => {
  it('a summary card names the turns, and an in-turn summary says it holds the earlier tool rounds', () => {
    assert.equal(summaryTitle({ firstTurn: 1, lastTurn: 2 }), 'Turns 1–2 were compacted into a summary.');
    assert.equal(summaryTitle({ firstTurn: 3, lastTurn: 3 }), 'Turn 3 was compacted into a summary.');
    assert.equal(
      summaryTitle({ firstTurn: 1, lastTurn: 1, inTurn: true }),
      'Earlier tool rounds of turn 1 were compacted into a summary.',
    );
    assert.equal(
      summaryTitle({ firstTurn: 1, lastTurn: 4, inTurn: true }),
      'Turns 1–3 and the earlier tool rounds of turn 4 were compacted into a summary.',
    );
  });

  it('the transcript marks summaries that end inside a turn (and only those), and the protocol carries the mark', () => {
    const b = new Build('p');
    const summary = (text: string, turn: number) => ({
      type: 'summary' as const,
      text,
      compactionId: `cmp_${turn}`,
      turnRange: [1, turn] as [number, number],
      meta: { ...b.text('').meta, source: 'compactor' as const },
    });
    const inTurn = b.message(
      'user',
      [b.text('Audit every module.'), summary(summaryText(1, 2, 'Read mod1 to mod9.', [], 'before', true), 2)],
      2,
    );
    const whole = b.message('user', [summary(summaryText(1, 1, 'Talked about auth.', [], 'none'), 1)], 1);
    const items = transcriptOf([whole, b.message('assistant', [b.text('Understood.', 'compactor')], 1), inTurn]).filter(
      (i) => i.kind === 'summary',
    );
    assert.deepEqual(
      items.map((i) => i.kind === 'summary' && i.inTurn),
      [undefined, true],
    );
    for (const item of items) assert.ok(parseChatToWebview({ type: 'upsert', item }).ok);
    assert.ok(!parseChatToWebview({ type: 'upsert', item: { ...items[1], inTurn: 'yes' } }).ok, 'inTurn is a boolean');
  });

  it('the chat shows a summary and the user words it keeps in the order the model reads them', () => {
    const b = new Build('q');
    const summary = (text: string) => ({
      type: 'summary' as const,
      text,
      compactionId: 'cmp_q',
      turnRange: [1, 2] as [number, number],
      meta: { ...b.text('').meta, source: 'compactor' as const },
    });
    const kinds = (blocks: Parameters<Build['message']>[1]) =>
      transcriptOf([b.message('user', blocks, 2)])
        .map((i) => i.kind)
        .join(' ');
    const whole = summary(summaryText(1, 2, 'Talked about auth.', [], 'after'));
    assert.equal(kinds([whole, b.text('First question'), b.text('Second question')]), 'summary user user');
    const inTurn = summary(summaryText(1, 2, 'Read mod1 to mod9.', [], 'before', true));
    assert.equal(kinds([b.text('Audit every module.'), inTurn]), 'user summary');
    assert.equal(kinds([whole]), 'summary', 'no user words');
  });

  it('a summary saved before 0.7.1 (its in-turn note worded for the current turn) is still marked as inside a turn', () => {
    const b = new Build('o');
    const old =
      'Summary of turns 1–2:\n\nRead mod1 to mod9.\n\nThis summary ends inside the current turn: the work on the latest request continues in the messages after it. Do not start the request over; carry on from where it stands.';
    const block = {
      type: 'summary' as const,
      text: old,
      compactionId: 'cmp_old',
      turnRange: [1, 2] as [number, number],
      meta: { ...b.text('').meta, source: 'compactor' as const },
    };
    const [item] = transcriptOf([b.message('user', [b.text('Audit every module.'), block], 2)]).filter(
      (i) => i.kind === 'summary',
    );
    assert.ok(item?.kind === 'summary' && item.inTurn === true);
  });

  it('a region of one turn is named "Turn 3", never "Turns 3–3"', () => {
    assert.equal(turnRangeLabel(3, 3), 'Turn 3');
    assert.equal(turnRangeLabel(1, 4), 'Turns 1–4');
    assert.equal(turnRangeText(2, 2), 'turn 2');
    assert.equal(turnRangeText(2, 5), 'turns 2–5');
  });

  it('a tool card whose result compaction masked says so; the others do not', () => {
    const convo = new Convo().user('read both').read('src/a.ts', lines(100)).read('src/b.ts', lines(100)).say('done');
    const state = convo.state();
    const masked = applyMask(state, layerCtx(0.8), maskCandidates(state.messages, 3, tokensOf)).state;
    const tools = transcriptOf(masked.messages).filter((i) => i.kind === 'tool');
    assert.deepEqual(
      tools.map((i) => i.kind === 'tool' && [i.input.includes('src/a.ts'), i.cleared]),
      [
        [true, true],
        [false, undefined],
      ],
    );
    assert.match(
      tools[0]?.kind === 'tool' ? (tools[0].result ?? '') : '',
      /^\[Tool result cleared to save context: read_file src\/a\.ts/,
    );
    for (const item of tools) assert.ok(parseChatToWebview({ type: 'upsert', item }).ok);
  });

  it("Compact Now's sentence names the tokens the run's records then carry (tokensBefore), and the whole prompt", async () => {
    const convo = new Convo();
    for (let t = 1; t <= 4; t++)
      convo
        .user(`question ${t}`)
        .read(`src/f${t}.ts`, lines(120, 40, `f${t}`))
        .say(`answer ${t}`);
    const state = convo.state({ keepRecentTurns: 1, keepRecentTokens: 0 });
    const llm = new ScriptedLlm(
      Array.from({ length: 4 }, () => ({
        content: [{ type: 'text' as const, text: 'The user asked about f1 to f3; the assistant read them.' }],
      })),
    );
    const compactor = testCompactor(llm);
    const preview = await compactor.preview(state);
    const sentence = previewSentence(preview);
    const m =
      /^Would compact (turns 1–3): about ([\d,]+) → ([\d,]+) tokens \(saves ~([\d,]+)\)\. The whole prompt: about ([\d,]+) → ([\d,]+) tokens\. Summariser: (claude-[\w-]+)(?: from cache)?, est\. \$[\d.]+ vs .+\.$/.exec(
        sentence,
      );
    assert.ok(m, sentence);
    const run = await compactor.compact(state, {
      trigger: 'manual',
      tokensToFree: 'all',
      signal: new AbortController().signal,
    });
    assert.ok(run.records.length > 0);
    assert.equal(run.records[0]?.model, m[7], 'the summary is written by the model the preview named');
    const num = (s: string | undefined) => Number((s ?? '').replace(/,/g, ''));
    assert.equal(
      num(m[2]),
      Math.round(run.records.reduce((n, r) => n + r.tokensBefore, 0)),
      'the "about A" of the preview is what the records show as tokens before',
    );
    assert.equal(num(m[5]), Math.round(preview.tokensBefore), 'and the whole prompt is named too');
    assert.deepEqual(
      run.records.flatMap((r) => r.regions.map((g) => `${g.firstTurn}–${g.lastTurn}`)),
      ['1–3'],
      'the run compacts the turns the preview named',
    );
  });

  it("Compact Now's sentence names the files the run then re-attaches fresh from disk", async () => {
    const convo = new Convo();
    for (let t = 1; t <= 4; t++)
      convo
        .user(`question ${t}`)
        .read(`src/f${t}.ts`, lines(120, 40, `f${t}`))
        .say(`answer ${t}`);
    const state = convo.state({ keepRecentTurns: 1, keepRecentTokens: 0 });
    const llm = new ScriptedLlm(
      Array.from({ length: 4 }, () => ({
        content: [{ type: 'text' as const, text: 'The user asked about f1 to f3; the assistant read them.' }],
      })),
    );
    const readFresh = async (path: string) => ({ ok: true as const, text: `// fresh ${path}\n`, bytes: 20 });
    const compactor = testCompactor(llm, { readFresh });
    const preview = await compactor.preview(state);
    assert.deepEqual(
      preview.reattached.map((f) => f.path),
      ['src/f3.ts', 'src/f2.ts', 'src/f1.ts'],
      'the compacted reads, most recent first; f4 stays verbatim',
    );
    assert.match(
      previewSentence(preview),
      / Then re-attaches src\/f3\.ts, src\/f2\.ts, src\/f1\.ts \(read fresh from disk\): ~\d+ tokens as the files are now\. The whole prompt: about [\d,]+ → [\d,]+ tokens\. Summariser: .+\.$/,
    );
    const run = await compactor.compact(state, {
      trigger: 'manual',
      tokensToFree: 'all',
      signal: new AbortController().signal,
    });
    assert.deepEqual(
      run.records.flatMap((r) => (r.reattached ?? []).map((f) => f.path)),
      preview.reattached.map((f) => f.path),
      'the run re-attaches the files the preview named',
    );
    // The reminder the run wrote is the one the preview read and counted in the whole prompt.
    const isReminder = (b: Message['blocks'][number]) => b.type === 'text' && isReattachReminder(b);
    const lead = run.state.messages.find((m) => m.blocks.some(isReminder));
    assert.ok(lead && preview.reattachTokens > 0);
    const added = tokensOf(lead) - tokensOf({ ...lead, blocks: lead.blocks.filter((b) => !isReminder(b)) });
    assert.ok(Math.abs(added - preview.reattachTokens) <= 2, `${added} vs ${preview.reattachTokens}`);
    assert.equal(preview.expectedAfter, preview.tokensBefore - preview.expectedSaving + preview.reattachTokens);
    const off = testCompactor(llm, {
      ids: counterIds('t'),
      measure: () => 0,
      settings: () => ({ ...DEFAULT_COMPACTION_SETTINGS, reattachAfterCompaction: false }),
      readFresh,
    });
    assert.deepEqual((await off.preview(state)).reattached, [], 'nothing is named when re-attach is off');
    // A file that cannot go with its content is listed as such, as the run then lists it.
    const huge = testCompactor(llm, {
      ids: counterIds('u'),
      readFresh: async (path: string) =>
        path === 'src/f2.ts'
          ? { ok: true as const, text: 'x'.repeat(400_000), bytes: 400_000 }
          : { ok: true as const, text: `// fresh ${path}\n`, bytes: 20 },
    });
    const partly = await huge.preview(state);
    assert.deepEqual(
      partly.reattached.map((f) => `${f.path}:${f.attached}`),
      ['src/f3.ts:content', 'src/f2.ts:reference', 'src/f1.ts:content'],
    );
    assert.match(
      previewSentence(partly),
      / Then re-attaches src\/f3\.ts, src\/f1\.ts \(read fresh from disk\) and lists src\/f2\.ts without their content \(too large\): ~\d+ tokens/,
    );
  });
});
