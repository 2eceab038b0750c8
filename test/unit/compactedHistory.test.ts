import { strict as assert } from 'node:assert';
import type { CompactionEntryState } from '../../src/core/agent/sessionCore';
import { applyMask, maskCandidates } from '../../src/core/compaction/mask';
import type { CompactionRecord } from '../../src/core/compaction/types';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import { CompactedHistory, compactedItems } from '../../src/host/chat/compactedHistory';
import { resultText, transcriptOf } from '../../src/host/chat/transcript';
import { TranscriptRenderer } from '../../src/host/chat/transcriptRenderer';
import { parseChatToWebview, type ChatToWebview } from '../../src/protocol/chat';
import { ownItemId, type ChatItem } from '../../src/protocol/chatItems';
import { compactedLabel } from '../../src/webview/chat/compactedLabel';
import { Convo, layerCtx, lines, testCompactor, tokensOf } from './support/compactionBuilders';
import { ScriptedLlm } from './support/scriptedLlm';

/** Four turns of a question, a read and an answer; turns 1–3 summarised (with a re-attach), as Compact Now does. */
async function compacted(): Promise<{
  before: ConversationState;
  state: ConversationState;
  records: CompactionRecord[];
  started: number[];
}> {
  const convo = new Convo();
  for (let t = 1; t <= 4; t++)
    convo
      .user(`question ${t}`)
      .read(`src/f${t}.ts`, lines(120, 40, `f${t}`))
      .say(`answer ${t}`);
  const before = convo.state({ keepRecentTurns: 1, keepRecentTokens: 0 });
  const llm = new ScriptedLlm([{ content: [{ type: 'text' as const, text: 'The user asked about f1 to f3.' }] }]);
  const readFresh = async (path: string) => ({ ok: true as const, text: `// fresh ${path}\n`, bytes: 20 });
  const started: number[] = [];
  const run = await testCompactor(llm, { readFresh }).compact(before, {
    trigger: 'manual',
    tokensToFree: 'all',
    signal: new AbortController().signal,
    onSummarising: (s) => void started.push(s.tokens),
  });
  return { before, state: run.state, records: [...run.records], started };
}

const entries = (records: readonly CompactionRecord[]): CompactionEntryState[] =>
  records.map((record) => ({ record, active: true }));
const texts = (items: readonly ChatItem[]) =>
  items.map((i) => (i.kind === 'tool' ? `tool ${i.summary}` : i.kind === 'user' ? `user ${i.text}` : i.kind));

describe('the compacted history in the chat', () => {
  it('a summary keeps its rounds in view: a group with their counts, whose items are the cards as they were', async () => {
    const { state, records, started } = await compacted();
    const record = records.find((r) => r.layer === 'summarise');
    assert.ok(record, records.map((r) => r.layer).join());
    assert.deepEqual(started, [record.tokensBefore], 'the live line is told the tokens the summary summarises');
    const history = new CompactedHistory(entries(records));
    const items = transcriptOf(state.messages, undefined, false, undefined, history);
    const group = items.find((i) => i.kind === 'compacted');
    assert.ok(group?.kind === 'compacted');
    assert.deepEqual(
      {
        toolCalls: group.toolCalls,
        answers: group.answers,
        userMessages: group.userMessages,
        summaries: group.summaries,
      },
      { toolCalls: 3, answers: 3, userMessages: 3, summaries: 0 },
    );
    assert.equal(group.compactionId, record.id);
    assert.equal(items[items.indexOf(group) - 1]?.kind, 'summary', 'the group stands right after its summary card');
    assert.equal(compactedLabel(group), '3 messages from you · 3 answers · 3 tool calls · summarised');
    const inside = compactedItems(record, (ms) => transcriptOf(ms, undefined, false, undefined, history));
    assert.deepEqual(
      texts(inside).filter((t) => t.startsWith('tool') || t.startsWith('user')),
      [
        'user question 1',
        'tool read_file src/f1.ts',
        'user question 2',
        'tool read_file src/f2.ts',
        'user question 3',
        'tool read_file src/f3.ts',
      ],
    );
    assert.ok(
      inside.some((i) => i.kind === 'assistant' && i.text === 'answer 2'),
      'the answers are there too',
    );
    const ids = inside.map((i) => i.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(
      ids.every((id) => id.startsWith(`${record.id}/`)),
      'prefixed, so they never clash with the live items',
    );
    const tool = inside.find((i) => i.kind === 'tool');
    assert.ok(tool && /^toolu_|^t/.test(ownItemId(tool.id)) && !ownItemId(tool.id).includes('/'));
    assert.ok(parseChatToWebview({ type: 'compactedItems', compactionId: record.id, items: inside }).ok);
    assert.ok(parseChatToWebview({ type: 'transcript', items }).ok);
  });

  it('after compaction the user messages it kept are one bubble each, and the re-attach is a notice line under the summary', async () => {
    const { state, records } = await compacted();
    const history = new CompactedHistory(entries(records));
    const items = transcriptOf(state.messages, undefined, false, undefined, history);
    const users = items.filter((i) => i.kind === 'user');
    assert.deepEqual(
      users.map((u) => u.kind === 'user' && u.text),
      ['question 1', 'question 2', 'question 3', 'question 4'],
    );
    assert.equal(new Set(users.map((u) => u.id)).size, 4, 'ids unique');
    const merged = state.messages.find((m) => m.blocks.some((b) => b.type === 'summary'));
    assert.ok(merged);
    assert.deepEqual(
      users.slice(0, 3).map((u) => u.kind === 'user' && (u.messageId ?? u.id)),
      [merged.id, merged.id, merged.id],
      'Pin on any of them pins the message that holds them',
    );
    assert.equal(users[0]?.id, merged.id, 'the first keeps the message id (stable with the live chat)');
    for (const u of users) assert.ok(u.kind === 'user' && u.injected.every((c) => c.tag !== 'system-reminder'));
    const notice = items.find((i) => i.kind === 'notice' && i.text.startsWith('Re-attached after compaction:'));
    assert.ok(notice?.kind === 'notice', texts(items).join(' | '));
    assert.match(notice.text, /^Re-attached after compaction: src\/f\d\.ts(, src\/f\d\.ts)*$/);
    const at = items.indexOf(notice);
    assert.deepEqual(
      items.slice(at - 2, at).map((i) => i.kind),
      ['summary', 'compacted'],
      'right under the summary and its group',
    );
    assert.deepEqual(
      items.slice(at + 1, at + 4).map((i) => i.kind),
      ['user', 'user', 'user'],
    );
  });

  it('a masked result is shown from the record that cleared it; one no record holds says so', () => {
    const convo = new Convo().user('read both').read('src/a.ts', lines(100)).read('src/b.ts', lines(100)).say('done');
    const state = convo.state();
    const r = applyMask(state, layerCtx(0.8), maskCandidates(state.messages, 3, tokensOf));
    assert.ok(r.record);
    const cleared = transcriptOf(r.state.messages).find((i) => i.kind === 'tool' && i.cleared);
    assert.ok(cleared?.kind === 'tool');
    const posts: ChatToWebview[] = [];
    const renderer = new TranscriptRenderer(
      { post: (m) => void posts.push(m) },
      undefined,
      () => 0,
      undefined,
      () => entries(r.record ? [r.record] : []),
    );
    renderer.openClearedResult(cleared.id);
    renderer.openClearedResult('toolu_unknown');
    const [found, missing] = posts;
    assert.ok(found?.type === 'clearedResult' && found.text?.startsWith('line'), JSON.stringify(found).slice(0, 200));
    assert.equal(found.text, resultText(lines(100)), 'capped like any result');
    assert.ok(
      missing?.type === 'clearedResult' && missing.text === undefined && /no longer kept/.test(missing.error ?? ''),
    );
    for (const p of posts) assert.ok(parseChatToWebview(p).ok);
  });

  it('a summary of a summary: the outer group holds the inner summary with its own group', async () => {
    const { state, records } = await compacted();
    const inner = records.find((r) => r.layer === 'summarise');
    assert.ok(inner);
    const outer: CompactionRecord = { ...inner, id: 'cmp_outer', originals: state.messages as Message[] };
    const history = new CompactedHistory(entries([...records, outer]));
    const build = (ms: readonly Message[]) => transcriptOf(ms, undefined, false, undefined, history);
    const items = compactedItems(outer, build);
    const group = items.find((i) => i.kind === 'compacted');
    assert.ok(group?.kind === 'compacted' && group.compactionId === inner.id, 'opening it asks for the inner record');
    assert.ok(items.some((i) => i.kind === 'summary'));
    // The outer group counts the inner rounds too; the kept questions and the compactor's notes once or not at all.
    const counts = history.counts(outer);
    assert.deepEqual(counts, { toolCalls: 4, answers: 4, userMessages: 4, summaries: 0 });
    const posts: ChatToWebview[] = [];
    const renderer = new TranscriptRenderer(
      { post: (m) => void posts.push(m) },
      undefined,
      () => 0,
      undefined,
      () => entries([...records, outer]),
    );
    renderer.openCompacted(inner.id);
    renderer.openCompacted('cmp_restored_long_ago');
    assert.ok(posts[0]?.type === 'compactedItems' && posts[0].items.length > 0 && posts[0].error === undefined);
    assert.ok(posts[1]?.type === 'compactedItems' && posts[1].items.length === 0 && posts[1].error);
  });

  it('the live line says what is summarised, then the outcome; a failure says so', async () => {
    const { records } = await compacted();
    const posts: ChatToWebview[] = [];
    const r = new TranscriptRenderer({ post: (m) => void posts.push(m) }, undefined, () => 7);
    const lines = () => posts.flatMap((p) => (p.type === 'upsert' && p.item.kind === 'notice' ? [p.item.text] : []));
    r.render({ type: 'compaction_started', trigger: 'manual' });
    r.render({ type: 'compaction_started', trigger: 'manual', tokens: 38_200 });
    r.render({ type: 'compaction_finished', records, notices: [] });
    const summary = records.filter((x) => x.layer === 'summarise');
    const k = (n: number) => (n >= 1000 ? `${Math.round(n / 1000)}k` : String(Math.round(n)));
    assert.deepEqual(lines(), [
      'Compacting…',
      'Compacting… (summarising 38k tokens)',
      `Compacted ${k(summary.reduce((n, x) => n + x.tokensBefore, 0))} → ${k(summary.reduce((n, x) => n + x.tokensAfter, 0))} tokens (summary).`,
    ]);
    const ids = posts.flatMap((p) => (p.type === 'upsert' ? [p.item.id] : []));
    assert.equal(ids[0], ids[1], 'the line is updated in place');
    posts.length = 0;
    r.render({ type: 'compaction_started', trigger: 'auto-hard', tokens: 900 });
    r.render({ type: 'error', error: { kind: 'unknown', retryable: false, message: 'The compaction failed: boom' } });
    r.render({ type: 'compaction_finished', records: [], notices: [] });
    assert.deepEqual(lines(), [
      'Compacting older history… (summarising 900 tokens)',
      'Compaction failed: nothing was compacted (see the error above).',
    ]);
    posts.length = 0;
    r.render({ type: 'compaction_finished', records: [], notices: [] });
    assert.deepEqual(lines(), [], 'a pass that did nothing and announced nothing stays quiet');
  });
});
