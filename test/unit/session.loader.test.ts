import { strict as assert } from 'node:assert';
import { promises as fsp, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { Message } from '../../src/core/conversation/conversationModel';
import { encodeEntry, SESSION_VERSION, type SessionEntry } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { loadSession } from '../../src/host/sessions/sessionLoader';
import { loaderHarness, NOW, text } from './support/loaderHarness';
import { Build } from './support/builders';
import { entriesOf, sampleConversation, sampleHeader, userWords } from './support/sessionSamples';

describe('session loader', () => {
  const h = loaderHarness('cp-loader-');
  const { load } = h;

  it('loads a sound file without touching it', async () => {
    const conv = sampleConversation();
    const r = await load(text(entriesOf(conv)));
    assert.equal(r.report, undefined);
    assert.deepEqual(r.session.messages, conv);
    assert.deepEqual(await fsp.readdir(h.dir()), ['2026-11-21T23-59-00-abc123.jsonl']);
  });

  it('drops a truncated last line, backs up first, and says so', async () => {
    const conv = sampleConversation();
    const full = text(entriesOf(conv));
    const r = await load(full.slice(0, full.length - 30));
    assert.deepEqual(r.session.messages, conv.slice(0, -1));
    assert.equal(r.report?.droppedLines.length, 1);
    assert.equal(r.report?.droppedLines[0]?.line, 7);
    assert.match(r.report?.fixes.join(' ') ?? '', /Line 7 was incomplete/);
    assert.match(r.report?.backupPath ?? '', /2026-11-21T23-59-00-abc123\.bak-2026-11-22T08-30-00-000Z\.jsonl$/);
    assert.equal(readFileSync(h.file(), 'utf8'), text(entriesOf(conv.slice(0, -1))));
  });

  it('keeps a complete last line that only lacks its newline', async () => {
    const conv = sampleConversation();
    const r = await load(text(entriesOf(conv)).slice(0, -1));
    assert.deepEqual(r.session.messages, conv);
    assert.match(r.report?.fixes.join(' ') ?? '', /no line end/);
    assert.ok(readFileSync(h.file(), 'utf8').endsWith('\n'));
  });

  it('skips garbage lines in the middle with their line numbers, and strips NUL bytes', async () => {
    const conv = sampleConversation();
    const ls = text(entriesOf(conv)).split('\n');
    ls.splice(3, 0, 'garbage }{', '\u0000\u0000\u0000');
    ls[5] = `\u0000${ls[5]}\u0000`;
    const r = await load(ls.join('\n'));
    assert.deepEqual(r.session.messages, conv);
    assert.deepEqual(
      r.report?.droppedLines.map((d) => d.line),
      [4],
    );
    assert.match(r.report?.fixes.join(' ') ?? '', /Removed 5 NUL byte/);
  });

  it('repairs an orphan tool_result (its call was on a damaged line) and keeps every user word', async () => {
    const conv = sampleConversation();
    const ls = text(entriesOf(conv)).split('\n');
    ls[2] = ls[2]?.slice(0, 40) + 'XX' + ls[2]?.slice(42); // the assistant message with the tool call
    const r = await load(ls.join('\n'));
    assert.deepEqual(userWords(r.session.messages), userWords(conv));
    assert.match(r.report?.fixes.join(' ') ?? '', /answered no tool call/);
    const last = readFileSync(h.file(), 'utf8').trim().split('\n').at(-1) ?? '';
    assert.equal(
      (decodeLine(last) as { entry: SessionEntry }).entry.type,
      'repair',
      'the repair is recorded in the file',
    );
  });

  it('answers a tool_use left unanswered when a user message follows (its result line was lost)', async () => {
    const conv = sampleConversation();
    const ls = text(entriesOf(conv)).split('\n');
    ls[3] = '{"type":"message","at":1,"message":{"id":';
    const r = await load(ls.join('\n'));
    assert.match(r.report?.fixes.join(' ') ?? '', /interrupted/);
    assert.deepEqual(userWords(r.session.messages), userWords(conv));
  });

  it('drops a message written twice', async () => {
    const conv = sampleConversation();
    const entries = entriesOf(conv);
    const r = await load(text([...entries.slice(0, 3), entries[2] as SessionEntry, ...entries.slice(3)]));
    assert.deepEqual(r.session.messages, conv);
    assert.match(r.report?.fixes.join(' ') ?? '', /written twice/);
  });

  it('rebuilds a missing header from the file name and the entries', async () => {
    const conv = sampleConversation();
    const r = await load(text(entriesOf(conv).slice(1)));
    assert.equal(r.session.header.sessionId, '2026-11-21T23-59-00-abc123');
    assert.equal(r.session.header.createdAt, sampleHeader().createdAt + 1000);
    assert.deepEqual(r.session.messages, conv);
    assert.match(r.report?.fixes.join(' ') ?? '', /header was missing/);
  });

  it('salvages what it can of a damaged header', async () => {
    const ls = text(entriesOf(sampleConversation())).split('\n');
    ls[0] = (ls[0] ?? '').replace('"type":"header"', '"type":"head\u00e9r"').slice(0, -1);
    const r = await load(ls.join('\n'));
    assert.equal(r.session.header.model, 'claude-sonnet-4-5');
    assert.equal(r.session.header.workspace, 'demo');
    assert.equal(r.session.header.createdAt, sampleHeader().createdAt);
  });

  it('refuses an empty file with a clear error and leaves it alone', async () => {
    await fsp.writeFile(h.file(), '');
    const r = await loadSession(h.file());
    assert.ok(!r.ok);
    assert.match(r.error, /empty/);
    assert.deepEqual(await fsp.readdir(h.dir()), ['2026-11-21T23-59-00-abc123.jsonl']);
  });

  it('a file of only garbage: a clear error naming the backup, the original untouched', async () => {
    const garbage = Buffer.from('not json\n\u0000\u0001\u0002 {"type":\nstill nothing');
    await fsp.writeFile(h.file(), garbage);
    const r = await loadSession(h.file(), { now: () => NOW });
    assert.ok(!r.ok);
    assert.match(r.error, /no readable entry/);
    assert.ok(r.backupPath && r.error.includes(r.backupPath));
    assert.ok(readFileSync(r.backupPath).equals(garbage));
    assert.ok(readFileSync(h.file()).equals(garbage));
  });

  it('a good header over garbage is an error, not a blank session', async () => {
    const r = await (async () => {
      await fsp.writeFile(h.file(), `${encodeEntry(sampleHeader())}\ngarbage\nmore garbage\n`);
      return loadSession(h.file());
    })();
    assert.ok(!r.ok);
    assert.match(r.error, /None of the session's messages could be read/);
  });

  it('leaves a file written by a newer version untouched', async () => {
    const content = text(entriesOf(sampleConversation())).replace(
      `"version":${SESSION_VERSION}`,
      `"version":${SESSION_VERSION + 1}`,
    );
    await fsp.writeFile(h.file(), content);
    const r = await loadSession(h.file());
    assert.ok(!r.ok);
    assert.match(r.error, /newer version/);
    assert.equal(readFileSync(h.file(), 'utf8'), content);
    assert.equal((await fsp.readdir(h.dir())).length, 1);
  });

  it('property: random damage (cuts, garbage, flipped bytes, NULs, repeated lines) never breaks the invariants nor loses a word of an intact line', async function () {
    this.timeout(20_000);
    const turnArb = fc.record({ words: fc.string({ minLength: 1, maxLength: 30 }), tool: fc.boolean() });
    const damageArb = fc.oneof(
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
      fc.record({
        kind: fc.constant('garbage' as const),
        lines: fc.array(fc.tuple(fc.nat(), fc.string({ maxLength: 40 })), { minLength: 1, maxLength: 4 }),
      }),
      fc.record({
        kind: fc.constant('flip' as const),
        line: fc.nat(),
        flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 3 }),
      }),
      fc.record({ kind: fc.constant('nul' as const), at: fc.array(fc.nat(), { minLength: 1, maxLength: 5 }) }),
      fc.record({ kind: fc.constant('repeat' as const), line: fc.nat(), to: fc.nat() }),
    );
    let run = 0;
    const stats = { clean: 0, repaired: 0, refused: 0, messageRepairs: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnArb, { minLength: 1, maxLength: 8 }),
        fc.array(damageArb, { minLength: 1, maxLength: 3 }),
        async (turns, damages) => {
          const conv = conversation(turns);
          let bytes: Buffer = Buffer.from(text(entriesOf(conv)));
          for (const d of damages) bytes = damage(bytes, d);
          const f = join(h.dir(), `p${run++}.jsonl`);
          await fsp.writeFile(f, bytes);
          const r = await loadSession(f, { now: () => NOW });
          const intact = new Set(
            Buffer.from(bytes.filter((b) => b !== 0))
              .toString('utf8')
              .split('\n'),
          );
          const survivors = entriesOf(conv).filter((e) => intact.has(encodeEntry(e)));
          const hasMessage = survivors.some((e) => e.type === 'message');
          if (!r.ok) stats.refused++;
          else if (!r.report) stats.clean++;
          else {
            stats.repaired++;
            stats.messageRepairs += r.entries.some((e) => e.type === 'repair') ? 1 : 0;
          }
          if (!r.ok) {
            assert.ok(!hasMessage, `refused although messages survived: ${r.error}`);
            assert.ok(readFileSync(f).equals(bytes), 'a refused file is untouched');
            return;
          }
          assert.deepEqual(checkInvariants(r.session), []);
          const words = userWords(r.session.messages);
          for (const e of survivors)
            if (e.type === 'message')
              for (const w of userWords([e.message])) assert.ok(words.includes(w), `lost ${JSON.stringify(w)}`);
          if (r.report?.backupPath) assert.ok(readFileSync(r.report.backupPath).equals(bytes));
          const again = await loadSession(f, { now: () => NOW });
          assert.ok(again.ok && again.report === undefined, 'repaired file is clean');
          assert.deepEqual(again.session.messages, r.session.messages);
        },
      ),
      {
        numRuns: Number(process.env.SESSION_PROPERTY_RUNS ?? 120),
        // A copy of a tool call's message, damaged, ahead of the original: the second call's id
        // is renamed (it was kept, so two calls shared it).
        examples: [
          [
            [{ words: ' ', tool: true }],
            [
              { kind: 'repeat', line: 2120763958, to: 0 },
              { kind: 'flip', line: 11, flips: [[2145385458, 1]] },
            ],
          ],
        ],
      },
    );
    console.log(`      damaged files: ${JSON.stringify(stats)}`);
    assert.ok(stats.repaired > 30 && stats.messageRepairs > 5, 'the damage exercises the repairs');
  });
});

function conversation(turns: readonly { words: string; tool: boolean }[]): Message[] {
  const b = new Build('p');
  const out: Message[] = [];
  turns.forEach((t, i) => {
    const prev = out.at(-1);
    const pending = prev?.blocks.flatMap((x) => (x.type === 'tool_use' ? [x] : [])) ?? [];
    out.push(
      b.message(
        'user',
        [...pending.map((u) => b.toolResult(u.id, `result of ${u.id}`)), b.text(`w${i}: ${t.words.trim() || 'x'}`)],
        i + 1,
      ),
    );
    out.push(
      b.message(
        'assistant',
        [b.text(`answer ${i}`, 'assistant'), ...(t.tool ? [b.toolUse('read_file', { path: `f${i}` })] : [])],
        i + 1,
      ),
    );
  });
  return out;
}

type Damage =
  | { kind: 'truncate'; at: number }
  | { kind: 'garbage'; lines: [number, string][] }
  | { kind: 'flip'; line: number; flips: [number, number][] }
  | { kind: 'nul'; at: number[] }
  | { kind: 'repeat'; line: number; to: number };

function damage(bytes: Buffer, d: Damage): Buffer {
  switch (d.kind) {
    case 'truncate':
      return bytes.subarray(0, d.at % (bytes.length + 1));
    case 'nul': {
      let out = bytes;
      for (const at of d.at) {
        const p = at % (out.length + 1);
        out = Buffer.concat([out.subarray(0, p), Buffer.alloc(1 + (at % 7)), out.subarray(p)]);
      }
      return out;
    }
    case 'garbage': {
      const ls = bytes.toString('utf8').split('\n');
      for (const [at, g] of d.lines) ls.splice(at % (ls.length + 1), 0, g.replace(/\n/g, ' '));
      return Buffer.from(ls.join('\n'));
    }
    case 'repeat': {
      const ls = bytes.toString('utf8').split('\n');
      ls.splice(d.to % (ls.length + 1), 0, ls[d.line % ls.length] ?? '');
      return Buffer.from(ls.join('\n'));
    }
    case 'flip': {
      const starts = [0, ...[...bytes.entries()].filter(([, b]) => b === 0x0a).map(([i]) => i + 1)].filter(
        (s) => s < bytes.length,
      );
      const start = starts[d.line % Math.max(1, starts.length)] ?? 0;
      const end = bytes.indexOf(0x0a, start) < 0 ? bytes.length : bytes.indexOf(0x0a, start);
      const out = Buffer.from(bytes);
      for (const [at, x] of d.flips)
        if (end > start)
          out.writeUInt8((out.readUInt8(start + (at % (end - start))) ^ x) & 0xff, start + (at % (end - start)));
      return out;
    }
  }
}
