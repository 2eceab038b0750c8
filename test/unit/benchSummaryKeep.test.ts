import { strict as assert } from 'node:assert';
import { mainSummaryInstruction } from '../../src/core/compaction/mainSummary';
import { buildSummaryRequest, renderTranscript } from '../../src/core/compaction/summaryPrompt';
import { containsWord } from '../../src/core/compaction/retention';
import type { Message } from '../../src/core/conversation/conversationModel';
import { ScriptedSummariser } from '../../bench/scriptedSummariser';
import { keptCount, rankIdentifiers, SUMMARY_KEEP } from '../../bench/summaryKeep';
import { isStructure, requestPassages, transcriptLines } from '../../bench/summaryPassages';
import { parseTranscript } from '../../bench/transcript';
import { assistant, user } from './support/benchTranscripts';

const quarter = (t: string) => Math.ceil(t.length / 4);

/** The messages of transcript lines. */
function messages(lines: readonly string[]): Message[] {
  return parseTranscript(lines.join('\n'), 'keep.jsonl').flatMap((e) => (e.kind === 'message' ? [e.message] : []));
}

/** The summariser request the pipeline builds for `region`. */
function request(region: readonly Message[]) {
  return buildSummaryRequest({
    model: 'claude-haiku-4-5',
    messages: region,
    regionTurns: [1, region.at(-1)?.turn ?? 1],
    chunk: 1,
    chunks: 1,
    targetTokens: 500,
    maxTokens: 8_000,
  });
}

/**
 * A region: a tool result listing 40 paths early (material), then the assistant naming
 * src/w0.ts … src/w9.ts one a message (words, w9 the newest), src/w0.ts twice more early on,
 * and a last answer naming src/pair-a.ts and src/pair-b.ts on one line (pair-b also named before).
 */
function region(): Message[] {
  const listing = Array.from({ length: 40 }, (_, i) => `lib/mat${i}.ts`).join('\n');
  return messages([
    user('Please tidy the modules; the listing is long.'),
    assistant([{ type: 'tool_use', id: 't1', name: 'list', input: { dir: 'lib' } }]),
    user([{ type: 'tool_result', tool_use_id: 't1', content: listing }]),
    assistant('First src/w0.ts, then src/w0.ts again, and src/pair-b.ts.'),
    ...Array.from({ length: 10 }, (_, i) => assistant(`Now src/w${i}.ts is done.`)),
    assistant('Last, src/pair-a.ts and src/pair-b.ts agree.'),
  ]);
}

describe('bench summariser: which identifiers a scripted summary keeps', () => {
  it('ranks the conversation’s own identifiers first, newest first, then the most mentioned', () => {
    const ranked = rankIdentifiers(requestPassages(request(region())));
    assert.deepEqual(
      ranked.slice(0, 12).map((r) => r.id),
      ['src/pair-b.ts', 'src/pair-a.ts', ...Array.from({ length: 10 }, (_, i) => `src/w${9 - i}.ts`)],
      'the last line names both pair paths: pair-b, mentioned twice, first; then w9 … w0',
    );
    assert.ok(ranked.slice(0, 12).every((r) => r.words));
    assert.deepEqual(
      ranked.slice(12).map((r) => r.id),
      Array.from({ length: 40 }, (_, i) => `lib/mat${39 - i}.ts`),
      'tool output only after every identifier of the conversation’s words',
    );
    assert.equal(keptCount(52, 0.1), 6, 'rounded up');
    assert.equal(keptCount(3, 0.1), 1, 'one of a few');
    assert.equal(keptCount(52, 0), 0);
    assert.equal(keptCount(0), 0);
  });

  it('keeps exactly the share of identifiers the rule ranks first, and no other', async () => {
    const params = request(region());
    const all = rankIdentifiers(requestPassages(params)).map((r) => r.id);
    for (const share of [0.1, 0.25, SUMMARY_KEEP]) {
      const s = new ScriptedSummariser({ tokens: quarter, keep: share });
      const r = await s.stream(params, { signal: new AbortController().signal, onEvent: () => undefined });
      assert.ok(r.ok);
      const text = r.result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('');
      const held = all.filter((id) => containsWord(text, id));
      assert.deepEqual(held, all.slice(0, keptCount(all.length, share)), `share ${share}`);
    }
  });

  it('never grows past its length to keep more: the lowest ranked are cut', () => {
    const params = request(region());
    const all = rankIdentifiers(requestPassages(params)).map((r) => r.id);
    const short = new ScriptedSummariser({ tokens: quarter, length: { ratio: 0, floor: 40 } });
    const loose = new ScriptedSummariser({ tokens: quarter });
    for (const share of [0.1, 0.5, 1]) {
      const d = short.draft(params, share);
      assert.ok(d.tokens <= 40, `share ${share}: ${d.tokens} tokens`);
      assert.deepEqual(
        all.filter((id) => containsWord(d.text, id)),
        all.slice(0, d.kept),
      );
      assert.ok(d.kept < all.length);
    }
    const few = loose.draft(params, 0.1);
    const many = loose.draft(params, 1);
    assert.ok(many.kept > few.kept);
    assert.ok(many.tokens <= 500 && few.tokens <= 500, 'both within the floor of SUMMARY_LENGTH');
  });
});

describe('bench summariser: what it reads as the conversation’s words', () => {
  it('marks each block of the rendered transcript by its label', () => {
    const msgs = messages([
      user('Fix parseConfig please.'),
      assistant([
        { type: 'thinking', thinking: 'Maybe readSettings is involved.', signature: 'sig' },
        { type: 'text', text: 'Looking at src/config.ts now.\nIt has two parts.' },
        { type: 'tool_use', id: 't1', name: 'read', input: { path: 'src/config.ts' } },
      ]),
      user([{ type: 'tool_result', tool_use_id: 't1', content: 'export function parseConfig() {}\nloadDefaults();' }]),
    ]);
    const lines = transcriptLines(renderTranscript(msgs));
    const words = (needle: string) => lines.find((l) => l.text.includes(needle))?.words;
    assert.equal(words('User: Fix parseConfig'), true);
    assert.equal(words('readSettings'), false, 'private reasoning is material');
    assert.equal(words('Assistant: Looking at src/config.ts'), true);
    assert.equal(words('It has two parts.'), true, 'a block’s later lines keep its label’s mark');
    assert.equal(words('Assistant called tool read'), true);
    assert.equal(words('export function parseConfig'), false, 'tool output is material');
    assert.equal(words('loadDefaults'), false);
    assert.ok(lines.filter((l) => isStructure(l.text)).length >= 4, 'message headers and the result label');
  });

  it('reads only the transcript and the previous summary of a request, and a main-model request’s stretch', () => {
    const text =
      'Intro naming src/prompt.ts.\n<previous_summary turns="1-2">\n- `src/kept.ts`\n</previous_summary>\n<transcript turns="3-3">\nUser: see src/new.ts\n</transcript>\nAim for src/after.ts.';
    assert.deepEqual(transcriptLines(text), [
      { text: '- `src/kept.ts`', words: true },
      { text: 'User: see src/new.ts', words: true },
    ]);
    const main = requestPassages({
      model: 'claude-sonnet-4-5',
      max_tokens: 1000,
      messages: [
        { role: 'user', content: 'outside the stretch src/before.ts' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'read', input: { path: 'src/in.ts' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'src/out.ts' }] },
        { role: 'assistant', content: 'done' },
        {
          role: 'user',
          content: [
            {
              type: 'text',
              text: mainSummaryInstruction({ from: 1, to: 2, regionTurns: [1, 2], targetTokens: 500, maxTokens: 900 }),
            },
          ],
        },
      ],
    });
    assert.deepEqual(main, [
      { text: 'read {"path":"src/in.ts"}', words: true },
      { text: 'src/out.ts', words: false },
    ]);
  });
});
