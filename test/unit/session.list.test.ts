import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '../../src/core/conversation/conversationModel';
import { encodeEntry, type SessionEntry } from '../../src/core/session/entries';
import { SUMMARY_CHUNK, SUMMARY_MAX_WINDOW } from '../../src/host/sessions/sessionSummary';
import { SessionStore } from '../../src/host/sessions/sessionStore';
import { sampleHeader } from './support/sessionSamples';

/** A message entry of `chars` characters of text. */
function message(i: number, chars: number): SessionEntry {
  const role: Message['role'] = i % 2 === 0 ? 'user' : 'assistant';
  const text = i === 0 ? 'fix the flaky login test please' : `${role} ${i} ${'x'.repeat(chars)}`;
  return {
    type: 'message',
    at: 1_700_000_000_000 + i,
    message: {
      id: `msg_${i}`,
      role,
      turn: Math.floor(i / 2) + 1,
      blocks: [
        {
          type: 'text',
          text,
          meta: { id: `blk_${i}`, tier: 1, source: role, createdAt: 0, pinned: false, compactable: role !== 'user' },
        },
      ],
    },
  };
}

describe('session list reads only the head and the tail of each file', () => {
  let root: string;
  let store: SessionStore;
  let reads: Map<string, number>;
  beforeEach(async () => {
    root = await fsp.mkdtemp(join(tmpdir(), 'cp-list-'));
    reads = new Map();
    store = SessionStore.inGlobalStorage(root, {
      now: () => 0,
      random: () => 0.5,
      onListRead: (file, _position, bytes) => void reads.set(file, (reads.get(file) ?? 0) + bytes),
    });
    await fsp.mkdir(store.dir, { recursive: true });
  });
  afterEach(async () => {
    await fsp.rm(root, { recursive: true, force: true });
  });

  it('summarises a 30 MB session from about 128 KB of it, with the right title, turns, time and size', async () => {
    const id = '2026-11-20T10-00-00-bigbig';
    const fh = await fsp.open(store.pathOf(id), 'w');
    await fh.write(`${encodeEntry(sampleHeader(id))}\n`);
    const n = 6_000;
    for (let start = 0; start < n; start += 500)
      await fh.write(Array.from({ length: 500 }, (_, k) => `${encodeEntry(message(start + k, 5_000))}\n`).join(''));
    await fh.write(
      `${encodeEntry({ type: 'usage', at: 1_800_000_000_000, requestIndex: 3000, turn: n / 2, model: 'claude-sonnet-4-5', usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, estimatedInputTokens: 1, costUsd: 0 })}\n`,
    );
    await fh.close();
    const size = (await fsp.stat(store.pathOf(id))).size;
    assert.ok(size > 30_000_000, `the file is large (${size} bytes)`);
    const [s] = await store.list();
    const read = reads.get(store.pathOf(id)) ?? 0;
    assert.ok(read > 0, 'the list reads through the counted reader');
    assert.ok(read <= 2 * SUMMARY_CHUNK + 1, `read ${read} bytes of ${size}`);
    assert.deepEqual(s, {
      id,
      title: 'fix the flaky login test please',
      createdAt: sampleHeader().createdAt,
      updatedAt: 1_800_000_000_000,
      turns: n / 2,
      hasMessages: true,
      model: 'claude-sonnet-4-5',
      sizeBytes: size,
      damaged: false,
    });
  });

  it('stays bounded when the last line alone is larger than the window, and still flags a torn end', async () => {
    const id = '2026-11-20T10-00-00-hugeln';
    const lines = [sampleHeader(id), message(0, 10), message(1, 3 * SUMMARY_MAX_WINDOW)]
      .map((e) => `${encodeEntry(e)}\n`)
      .join('');
    await fsp.writeFile(store.pathOf(id), lines);
    const [s] = await store.list();
    const read = reads.get(store.pathOf(id)) ?? 0;
    assert.ok(read <= 2 * SUMMARY_MAX_WINDOW + 1, `read ${read} bytes`);
    assert.equal(s?.title, 'fix the flaky login test please');
    assert.equal(s?.damaged, false);
    assert.equal(s?.hasMessages, true);
    await fsp.appendFile(store.pathOf(id), '{"type":"mess');
    assert.equal((await store.list())[0]?.damaged, true, 'a torn last line is noticed from the last byte');
  });

  it('a small file is read whole, once; damage in it is flagged', async () => {
    const id = '2026-11-20T10-00-00-smalll';
    await fsp.writeFile(
      store.pathOf(id),
      `${encodeEntry(sampleHeader(id))}\n${encodeEntry(message(0, 10))}\ngarbage\n${encodeEntry(message(1, 10))}\n`,
    );
    const [s] = await store.list();
    assert.equal(reads.get(store.pathOf(id)), (await fsp.stat(store.pathOf(id))).size);
    assert.equal(s?.damaged, true);
    assert.equal(s?.turns, 1);
  });

  it('lists a session that cannot be read at all, as damaged with the reason, instead of leaving it out', async () => {
    const id = '2026-11-20T10-00-00-unread';
    await fsp.mkdir(store.pathOf(id)); // not a file: reading it fails
    await fsp.writeFile(store.pathOf('2026-11-20T09-00-00-okokok'), `${encodeEntry(sampleHeader())}\n`);
    const list = await store.list();
    assert.deepEqual(list.map((s) => [s.id, s.damaged]).sort(), [
      ['2026-11-20T09-00-00-okokok', false],
      [id, true],
    ]);
    const bad = list.find((s) => s.id === id);
    assert.match(bad?.error ?? '', /EISDIR|directory/i);
    const opened = await store.open(id);
    assert.ok(!opened.ok && opened.error.length > 0, 'opening it explains the failure');
  });
});

describe('session list: damaged sessions are listed with the reason, openable and deletable', () => {
  let root: string;
  let store: SessionStore;
  beforeEach(async () => {
    root = await fsp.mkdtemp(join(tmpdir(), 'cp-list-damage-'));
    store = SessionStore.inGlobalStorage(root, { now: () => 0, random: () => 0.5 });
    await fsp.mkdir(store.dir, { recursive: true });
  });
  afterEach(async () => {
    await fsp.rm(root, { recursive: true, force: true });
  });

  it('says what looks damaged: a bad line, a torn end, a missing header, an empty file', async () => {
    const good = (id: string) => `${encodeEntry(sampleHeader(id))}\n${encodeEntry(message(0, 10))}\n`;
    const files: Record<string, string> = {
      '2026-11-20T10-00-00-badlin': `${good('a')}garbage\n`,
      '2026-11-20T10-00-00-tornnd': `${good('b')}{"type":"mess`,
      '2026-11-20T10-00-00-nohead': `${encodeEntry(message(0, 10))}\n`,
      '2026-11-20T10-00-00-emptyy': '',
      '2026-11-20T10-00-00-health': good('c'),
    };
    for (const [id, text] of Object.entries(files)) await fsp.writeFile(store.pathOf(id), text);
    const list = await store.list();
    const damage = Object.fromEntries(list.map((s) => [s.id.slice(-6), [s.damaged, s.damage ?? '']]));
    const expected: Record<string, [boolean, RegExp]> = {
      badlin: [true, /^A line could not be read: not JSON \(.+\)\.$/],
      tornnd: [true, /^Its last line is incomplete \(a write was cut off\)\.$/],
      nohead: [true, /^Its header \(first line\) is missing or unreadable\.$/],
      emptyy: [true, /^The file is empty\.$/],
      health: [false, /^$/],
    };
    assert.deepEqual(Object.keys(damage).sort(), Object.keys(expected).sort());
    for (const [key, [flag, reason]] of Object.entries(expected)) {
      assert.equal(damage[key]?.[0], flag, key);
      assert.match(String(damage[key]?.[1]), reason, key);
    }
    const opened = await store.open('2026-11-20T10-00-00-badlin');
    assert.ok(opened.ok && opened.report?.backupPath, 'a damaged session opens through the repairing loader');
    await opened.writer.close();
    const deleted = await store.delete('2026-11-20T10-00-00-emptyy');
    assert.ok(deleted.ok, 'a damaged session can be deleted');
    assert.equal((await store.list()).length, 4);
  });

  it('an unreadable session is listed with its error and can be deleted; a file deleted meanwhile is not listed', async () => {
    const id = '2026-11-20T10-00-00-unread';
    await fsp.mkdir(store.pathOf(id));
    const [s] = await store.list();
    assert.deepEqual([s?.id, s?.damaged], [id, true]);
    assert.match(s?.error ?? '', /EISDIR|directory/i);
    await fsp.rmdir(store.pathOf(id));
    await fsp.writeFile(store.pathOf(id), '');
    const readdir = fsp.readdir;
    const vanishing = '2026-11-20T10-00-00-gonego';
    // The directory listing names a file that no longer exists when it is summarised.
    fsp.readdir = (async () => [`${id}.jsonl`, `${vanishing}.jsonl`]) as unknown as typeof fsp.readdir;
    try {
      assert.deepEqual(
        (await store.list()).map((x) => x.id),
        [id],
      );
    } finally {
      fsp.readdir = readdir;
    }
    const deleted = await store.delete(id);
    assert.ok(deleted.ok);
  });
});
