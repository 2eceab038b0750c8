import { strict as assert } from 'node:assert';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { Message, SummaryBlock } from '../../src/core/conversation/conversationModel';
import type { SessionEntry } from '../../src/core/session/entries';
import { sessionToMarkdown, sessionDisplayTitle } from '../../src/core/session/markdown';
import { INTERRUPTED_CALL } from '../../src/core/normalize/standInAnswers';
import { repairMessages, type RepairMeter } from '../../src/core/session/repair';
import { replaySession } from '../../src/core/session/replay';
import { Build } from './support/builders';
import {
  compactionEntry,
  entriesOf,
  messagesSharingOneId,
  orphanedCompaction,
  sampleConversation,
  sampleHeader,
  summaryReplacement,
  usageEntry,
  userWords,
} from './support/sessionSamples';

describe('session replay', () => {
  it('rebuilds the conversation, usage, the header title and pins', () => {
    const conv = sampleConversation();
    const pinned = conv[0]?.blocks[1]?.meta.id as string;
    const entries: SessionEntry[] = [
      ...entriesOf(conv),
      {
        type: 'usage',
        at: 9e12,
        requestIndex: 1,
        turn: 1,
        model: 'm',
        usage: { input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        estimatedInputTokens: 1,
        costUsd: 0.5,
      },
      { type: 'pin', at: 2, blockId: pinned },
    ];
    const s = replaySession(entries);
    assert.deepEqual(
      s.messages.map((m) => m.id),
      conv.map((m) => m.id),
    );
    assert.deepEqual(s.pins, [pinned]);
    assert.equal(s.messages[0]?.blocks[1]?.meta.pinned, true);
    assert.equal(s.title, entries[0]?.type === 'header' ? entries[0].title : 'no header');
    assert.equal(s.usage.length, 1);
    assert.equal(s.updatedAt, 9e12);
    assert.deepEqual([s.problems, s.fixes, s.ignored], [[], [], []]);
    assert.deepEqual(replaySession([...entries, { type: 'unpin', at: 5, blockId: pinned }]).pins, []);
  });

  it('applies a compaction, then a restore gives back the original messages verbatim', () => {
    const b = new Build('c');
    const conv = sampleConversation(b);
    const replacement = summaryReplacement(b, 'cmp_1', 'The user had a.ts read: it exports a = 1.');
    const compaction = compactionEntry({
      id: 'cmp_1',
      trigger: 'auto-soft',
      originals: conv.slice(0, 4),
      replacement,
      tokensBefore: 900,
      tokensAfter: 60,
    });
    const compacted = replaySession([...entriesOf(conv), compaction]);
    assert.deepEqual(
      compacted.messages.map((m) => m.id),
      [...replacement, ...conv.slice(4)].map((m) => m.id),
    );
    assert.deepEqual(checkInvariants(compacted), []);
    assert.equal(compacted.compactions[0]?.active, true);
    const restored = replaySession([
      ...entriesOf(conv),
      compaction,
      { type: 'restore', at: 11, compactionId: 'cmp_1' },
    ]);
    assert.deepEqual(restored.messages, conv);
    assert.equal(restored.compactions[0]?.active, false);
    const twice = replaySession([
      ...entriesOf(conv),
      compaction,
      { type: 'restore', at: 11, compactionId: 'cmp_1' },
      { type: 'restore', at: 12, compactionId: 'cmp_1' },
      { type: 'restore', at: 13, compactionId: 'nope' },
    ]);
    assert.deepEqual(twice.messages, conv);
    assert.equal(twice.problems.length, 2);
    assert.deepEqual(twice.ignored, [9, 10]);
  });

  it('keeps a compaction whose messages are gone, marked orphaned, with its originals (their only copy)', () => {
    const b = new Build('o');
    const conv = sampleConversation(b);
    const orphan = orphanedCompaction(b, 'cmp_o', 'words only the compaction still has', 'and its answer');
    const s = replaySession([...entriesOf(conv), orphan]);
    assert.deepEqual(s.messages, conv, 'the conversation is untouched');
    assert.deepEqual(s.compactions, [{ entry: orphan, active: false, orphaned: true }]);
    assert.deepEqual([s.problems, s.ignored], [[], []], 'nothing to drop: the loader keeps the entry');
    assert.deepEqual(
      s.requestHistory,
      replaySession(entriesOf(conv)).requestHistory,
      'it marks no request as compacted',
    );
    assert.deepEqual(checkInvariants(s), []);
    const undo = replaySession([...entriesOf(conv), orphan, { type: 'restore', at: 11, compactionId: 'cmp_o' }]);
    assert.deepEqual(undo.messages, conv);
    assert.match(
      undo.problems.join(' '),
      /undo of compaction cmp_o was skipped: the messages it replaced were not in the conversation/,
    );
    assert.deepEqual(undo.ignored, [8], 'only the impossible undo is dropped');
  });

  it('repairs 16 000 messages sharing one id in linear work (counted steps, not time)', () => {
    for (const role of [
      (i: number): Message['role'] => (i % 2 === 0 ? 'user' : 'assistant'),
      (): Message['role'] => 'user',
    ]) {
      const steps = (n: number) => {
        const meter: RepairMeter = { steps: 0 };
        const r = repairMessages(messagesSharingOneId(n, role), meter);
        assert.equal(new Set(r.messages.map((m) => m.id)).size, r.messages.length, 'ids are unique after repair');
        assert.deepEqual(checkInvariants({ messages: r.messages }), []);
        return meter.steps;
      };
      const half = steps(8_000);
      const full = steps(16_000);
      assert.ok(half > 8_000, `the meter counts the work (${half})`);
      assert.ok(full <= 10 * 16_000, `at most 10 steps per message (${full})`);
      assert.ok(full / half < 2.2, `doubling the input about doubles the work (${half} → ${full})`);
    }
  });

  it('reports a second header and a pin of an unknown block as ignored entries', () => {
    const s = replaySession([
      ...entriesOf(sampleConversation()),
      sampleHeader('other'),
      { type: 'pin', at: 1, blockId: 'blk_nowhere' },
    ]);
    assert.equal(s.header.sessionId, sampleHeader().sessionId);
    assert.deepEqual(s.ignored, [7, 8]);
    assert.match(s.problems.join(' '), /second header.*blk_nowhere/);
  });
});

describe('session repair', () => {
  const sound = (messages: readonly Message[]) => assert.deepEqual(checkInvariants({ messages }), []);

  it('leaves a sound conversation alone, including a trailing unanswered tool call', () => {
    const b = new Build('r');
    const conv = [
      ...sampleConversation(b),
      b.message('user', [b.text('again')], 3),
      b.message('assistant', [b.toolUse('read_file')], 3),
    ];
    const r = repairMessages(conv);
    assert.deepEqual(r.fixes, []);
    assert.deepEqual(r.messages, conv);
  });

  it('turns an orphan tool_result into text that keeps its content', () => {
    const b = new Build('o');
    const long = `${'x'.repeat(250)}`;
    const conv = [
      b.message('user', [b.text('hi')], 1),
      b.message('assistant', [b.text('yo', 'assistant')], 1),
      b.message('user', [b.toolResult('toolu_gone', long), b.text('next words')], 2),
    ];
    const r = repairMessages(conv);
    sound(r.messages);
    const text = r.messages[2]?.blocks[0];
    assert.ok(text?.type === 'text');
    assert.equal(
      text.text,
      `[Result of an earlier tool call toolu_gone, whose call is no longer in the history]\n${long}`,
    );
    assert.deepEqual(userWords(r.messages), ['hi', 'next words']);
    assert.match(r.fixes.join(' '), /toolu_gone/);
  });

  it('answers a tool_use left unanswered when a user message follows', () => {
    const b = new Build('u');
    const call = b.toolUse('run', { cmd: 'ls' });
    const conv = [
      b.message('user', [b.text('list files')], 1),
      b.message('assistant', [call], 1),
      b.message('user', [b.text('hello?')], 2),
    ];
    const r = repairMessages(conv);
    sound(r.messages);
    const first = r.messages[2]?.blocks[0];
    assert.ok(
      first?.type === 'tool_result' &&
        first.isError === true &&
        first.toolUseId === call.id &&
        first.content === INTERRUPTED_CALL,
    );
    assert.deepEqual(userWords(r.messages), ['list files', 'hello?']);
  });

  it('drops a verbatim duplicate, renames a different message with the same id, merges same-role neighbours', () => {
    const b = new Build('d');
    const [u1, a1] = sampleConversation(b) as [Message, Message];
    const u2 = b.message('user', [b.text('second words')], 2);
    const clash: Message = { ...b.message('user', [b.text('clashing words')], 2), id: u2.id };
    const conv = [u1, a1, a1, u2, clash];
    const r = repairMessages(conv);
    sound(r.messages);
    assert.deepEqual(userWords(r.messages), userWords([u1, u2, clash]));
    assert.match(r.fixes.join('\n'), /written twice/);
    assert.match(r.fixes.join('\n'), /Two different messages had the id/);
    assert.match(r.fixes.join('\n'), /merged/);
  });

  it('drops empty text, empty messages, fixes roles, compactable flags, turn order and a leading answer', () => {
    const b = new Build('e');
    const userText = { ...b.text('mine'), meta: { ...b.text('x').meta, compactable: true } };
    const conv = [
      b.message('assistant', [b.text('I start', 'assistant')], 2),
      b.message('user', [b.text('   '), userText, b.toolUse('bad')], 1),
      b.message('assistant', [b.text('', 'assistant')], 1),
      b.message('assistant', [b.toolResult('toolu_q', 'lost'), b.text('ok', 'assistant')], 1),
    ];
    const r = repairMessages(conv);
    sound(r.messages);
    assert.deepEqual(userWords(r.messages), ['mine']);
    assert.equal(r.messages[0]?.role, 'user');
    assert.ok(r.fixes.length >= 6, r.fixes.join('\n'));
    assert.deepEqual(repairMessages(r.messages).fixes, [], 'repair is idempotent');
  });
});

describe('session markdown export', () => {
  it('shows the user words, context as quotes, tool calls as JSON with their results, summaries and usage', () => {
    const b = new Build('k');
    const conv = sampleConversation(b);
    const summary: SummaryBlock = {
      type: 'summary',
      text: 'Earlier: nothing.',
      compactionId: 'cmp_9',
      turnRange: [0, 0],
      meta: { id: 'blk_s', tier: 0, source: 'compactor', createdAt: 0, pinned: false, compactable: false },
    };
    const first = conv[0] as Message;
    conv[0] = { ...first, blocks: [summary, ...first.blocks] };
    const call = b.toolUse('grep', { pattern: '```' });
    conv.push(
      b.message('user', [b.text('search')], 3),
      b.message('assistant', [call], 3),
      b.message('user', [b.toolResult(call.id, 'r'.repeat(5000))], 3),
    );
    const s = replaySession([
      ...entriesOf(conv),
      usageEntry(0.0123, { input: 1234, output: 56, read: 7, write: 8, estimated: 1200 }),
    ]);
    const md = sessionToMarkdown(s);
    for (const words of userWords(conv)) assert.ok(md.includes(words), words);
    assert.match(md, /^# please read a\.ts and explain$/m);
    assert.match(md, /^> <ide_selection>line 1<\/ide_selection>$/m);
    assert.match(md, /\*\*Tool call\*\* `read_file`/);
    assert.match(md, /"path": "src\/a\.ts"/);
    assert.match(md, /export const a = 1;/);
    assert.match(md, /Compaction summary\*\* of turns 0–0/);
    assert.match(md, /\| 1 \| claude-sonnet-4-5 \| 1234 \| 7 \| 8 \| 56 \| 1200 \| \$0\.0123 \|/);
    assert.match(md, /cut: 1000 more characters/);
    assert.match(md, /````json\n\{\n {2}"pattern": "```"\n\}\n````/);
    assert.equal(md.split('export const a = 1;').length, 2, 'a result is shown once, under its call');
    assert.ok(!/\*\*You\*\*\n\n\*\*Claude/.test(md), 'a message of tool results only adds no empty heading');
  });

  it('titles a session by its title, else the first user words cut at 60 characters', () => {
    const b = new Build('t');
    assert.equal(sessionDisplayTitle(' Mine ', []), 'Mine');
    const words = 'word '.repeat(30);
    const t = sessionDisplayTitle(undefined, [b.message('user', [b.text('<x>', 'ide_opened_file'), b.text(words)], 1)]);
    assert.equal(t.length, 60);
    assert.ok(t.startsWith('word word') && t.endsWith('…'));
    assert.equal(sessionDisplayTitle(undefined, []), 'Untitled session');
  });
});
