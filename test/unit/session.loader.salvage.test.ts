import { strict as assert } from 'node:assert';
import { promises as fsp, readFileSync } from 'node:fs';
import { AgentSession } from '../../src/core/agent/agentSession';
import { counterIds } from '../../src/core/platform/platformPorts';
import { encodeEntry, type SessionEntry } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { splitSplicedLine } from '../../src/core/session/salvage';
import { isWellFormed } from '../../src/core/platform/text';
import { entryToRecord } from '../../src/core/session/compactionEntry';
import { analyzeSession, loadSession } from '../../src/host/sessions/sessionLoader';
import { loaderHarness, NOW, text } from './support/loaderHarness';
import { Build, emptyState } from './support/builders';
import {
  entriesOf,
  messagesSharingOneId,
  orphanedCompaction,
  sampleConversation,
  sampleHeader,
  userWords,
} from './support/sessionSamples';
import { agentDeps } from './support/agentDeps';

describe('session loader: spliced lines, lone surrogates, orphaned compactions, duplicate ids', () => {
  const h = loaderHarness('cp-salvage-');
  const { load } = h;

  it('splits two complete entries spliced onto one line (a lost line end) and keeps both', async () => {
    const conv = sampleConversation();
    const ls = text(entriesOf(conv)).split('\n');
    const spliced = [...ls.slice(0, 3), `${ls[3]}${ls[4]}`, ...ls.slice(5)].join('\n');
    const r = await load(spliced);
    assert.deepEqual(r.session.messages, conv, 'nothing lost');
    assert.deepEqual(r.report?.droppedLines, []);
    assert.match(r.report?.fixes.join(' ') ?? '', /Line 4 held 2 complete entries run together .*split and all kept/);
    assert.equal(readFileSync(h.file(), 'utf8'), text(entriesOf(conv)), 'rewritten one entry per line');
  });

  it('keeps the complete entry written after one cut off by a crash on the same line, and says what was left out', async () => {
    const conv = sampleConversation();
    const ls = text(entriesOf(conv)).split('\n');
    const torn = (ls[3] ?? '').slice(0, 70); // the tool result message, cut inside its blocks
    const r = await load([...ls.slice(0, 3), `${torn}${ls[4]}`, ...ls.slice(5)].join('\n'));
    const want = [...conv.slice(0, 2), ...conv.slice(3)];
    assert.deepEqual(userWords(r.session.messages), userWords(want));
    assert.ok(JSON.stringify(r.session.messages).includes('It exports a = 1.'), 'the entry after the torn one is kept');
    assert.match(
      r.report?.fixes.join(' ') ?? '',
      /Line 4 held 1 complete entry run together with a write cut off by a crash; it was split off and kept, and the cut-off part \(70 characters\) was left out/,
    );
  });

  it("keeps the user's words of a message whose image cannot be read, and says which block was left out", () => {
    const entries = entriesOf(sampleConversation());
    const at = (entries.at(-1) as { at: number }).at + 1;
    const meta = { tier: 1, source: 'user', createdAt: 0, pinned: false, compactable: false };
    const message = {
      id: 'msg_img',
      role: 'user',
      turn: 3,
      blocks: [
        { type: 'text', text: 'MY IMPORTANT WORDS', meta: { ...meta, id: 'blk_w' } },
        { type: 'image', mediaType: 'image/bmp', data: 'Qk0=', meta: { ...meta, id: 'blk_img' } },
      ],
    };
    const lines = [...entries.map((e) => encodeEntry(e)), JSON.stringify({ type: 'message', at, message })];
    const a = analyzeSession(Buffer.from(`${lines.join('\n')}\n`), 'f', NOW);
    assert.ok(userWords(a.session?.messages ?? []).includes('MY IMPORTANT WORDS'), 'the words are kept');
    const kept = a.session?.messages.find((m) => m.id === 'msg_img');
    assert.deepEqual(
      kept?.blocks.map((b) => b.type),
      ['text'],
    );
    assert.ok(
      a.fixes.some((f) =>
        /^Line \d+: 1 block of a message could not be read \(mediaType: .*image\/bmp.*\) and was left out/.test(f),
      ),
      a.fixes.join('\n'),
    );
  });

  it('reads a file saved as UTF-16 (LE or BE, with or without a byte order mark) as the same session', () => {
    const utf8 = `${entriesOf(sampleConversation())
      .map((e) => encodeEntry(e))
      .join('\n')}\n`;
    const expected = analyzeSession(Buffer.from(utf8), 'f', NOW).session?.messages;
    assert.ok(expected && expected.length > 0);
    const le = Buffer.from(utf8, 'utf16le');
    const be = Buffer.from(le).swap16();
    for (const [name, bytes] of [
      ['LE with BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), le])],
      ['BE with BOM', Buffer.concat([Buffer.from([0xfe, 0xff]), be])],
      ['LE without BOM', le],
    ] as const) {
      const a = analyzeSession(bytes, 'f', NOW);
      assert.deepEqual(a.session?.messages, expected, name);
      assert.ok(
        a.fixes.some((f) => /saved as UTF-16/.test(f)),
        `${name}: ${a.fixes.join(' | ')}`,
      );
      assert.ok(!a.fixes.some((f) => /NUL byte/.test(f)), name);
    }
  });

  it('splitSplicedLine: nested blocks are never taken for entries; a plain torn line yields nothing', () => {
    const conv = sampleConversation();
    const [a, b, c] = entriesOf(conv).slice(1, 4).map(encodeEntry) as [string, string, string];
    assert.equal(splitSplicedLine(a.slice(0, -10)), undefined, 'a torn line alone');
    assert.equal(splitSplicedLine(`${a.slice(0, 120)}garbage`), undefined);
    const three = splitSplicedLine(`${a}${b.slice(0, 50)}  ${c}`);
    assert.deepEqual(
      three?.entries.map((e) => e.type === 'message' && e.message.id),
      [conv[0]?.id, conv[2]?.id],
    );
    assert.equal(three?.droppedChars, 50);
    assert.ok(b.indexOf('{"type":', 1) > 0, 'the sample has nested blocks that start like entries');
  });

  it('repairs stored lone surrogates: replaced with U+FFFD, reported, backed up first', async () => {
    const b = new Build('u');
    const conv = sampleConversation(b);
    const bad = b.message('user', [b.text('emoji cut in half: \ud83d and a stray \udc00 — rest kept')], 3);
    const answer = b.message('assistant', [b.text('ok \ud800', 'assistant')], 3);
    const entries = [...entriesOf([...conv, bad, answer], { ...sampleHeader(), title: 'title \udbff' })];
    const r = await load(text(entries));
    const all = JSON.stringify(r.entries);
    assert.ok(!/\\ud[89a-f]/i.test(all), 'no surrogate escape is left in the entries');
    for (const m of r.session.messages)
      for (const blk of m.blocks) if (blk.type === 'text') assert.ok(isWellFormed(blk.text), blk.text);
    assert.equal(userWords(r.session.messages).at(-1), 'emoji cut in half: \ufffd and a stray \ufffd — rest kept');
    assert.equal(r.session.title, 'title \ufffd');
    assert.match(
      r.report?.fixes.join(' ') ?? '',
      /3 lines \(1, 8, 9\) held a broken character \(half of a UTF-16 surrogate pair, which the API rejects\); each was replaced with �/,
    );
    assert.ok(!/\\ud[89a-f]/i.test(readFileSync(h.file(), 'utf8')), 'the file itself is repaired');
    assert.deepEqual(r.session.messages.slice(0, conv.length), conv, 'clean messages are untouched');
  });

  it('leaves a valid surrogate pair alone, even written as escapes', async () => {
    const conv = sampleConversation();
    const content = text(entriesOf(conv)).replace('thanks — now in French?', 'thanks \\ud83d\\ude42');
    await fsp.writeFile(h.file(), content);
    const r = await loadSession(h.file(), { now: () => NOW });
    assert.ok(r.ok && r.report === undefined);
    assert.ok(userWords(r.session.messages).includes('thanks 🙂'));
  });

  it('keeps an orphaned compaction (its messages lost) with its originals through a repair; Restore is refused with the reason', async () => {
    const b = new Build('o');
    const conv = sampleConversation(b);
    const orphan = orphanedCompaction(b, 'cmp_o', 'the only copy of these words', 'and this answer');
    // Some other damage makes the loader rewrite the file: the orphan must survive that rewrite.
    const r = await load(`${text([...entriesOf(conv), orphan])}garbage\n`);
    assert.ok(r.report, 'the file was repaired');
    assert.deepEqual(r.session.compactions, [{ entry: orphan, active: false, orphaned: true }]);
    const stored = readFileSync(h.file(), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (decodeLine(l) as { entry: SessionEntry }).entry);
    assert.deepEqual(
      stored.find((e) => e.type === 'compaction'),
      orphan,
      'its entry, originals included, is still in the file',
    );
    const never = async () => {
      throw new Error('not used');
    };
    const agent = new AgentSession(
      emptyState({ messages: r.session.messages }),
      agentDeps({
        llm: { stream: never },
        tools: { run: never },
        sink: { message: never, usage: never, compaction: never, restore: never, pins: never },
        ids: counterIds('x'),
        writeFile: never,
      }),
      () => undefined,
      r.session.compactions.map((c) => ({
        record: entryToRecord(c.entry),
        active: c.active,
        ...(c.orphaned ? { orphaned: c.orphaned } : {}),
      })),
    );
    const refused = await agent.commands.restore('cmp_o');
    assert.ok(
      !refused.ok && /cannot be restored: the messages it replaced were lost/.test(refused.reason),
      JSON.stringify(refused),
    );
  });

  // The linear bound itself is checked by counting steps (session.replay.test.ts); this only
  // guards the whole load against a regression of the 114 s it took, with room for a busy machine.
  it('loads 16 000 messages sharing one id (secondary guard: under 30 s, not minutes)', async function () {
    this.timeout(60_000);
    await fsp.writeFile(h.file(), text(entriesOf(messagesSharingOneId(16_000))));
    const t0 = process.hrtime.bigint();
    const r = await loadSession(h.file(), { now: () => NOW });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    assert.ok(r.ok);
    assert.equal(r.session.messages.length, 16_000);
    assert.equal(new Set(r.session.messages.map((m) => m.id)).size, 16_000);
    assert.ok(ms < 30_000, `took ${ms.toFixed(0)} ms`);
  });
});
