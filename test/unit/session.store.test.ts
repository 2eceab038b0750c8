import { strict as assert } from 'node:assert';
import { promises as fsp, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { encodeEntry } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { newSessionId, SessionStore } from '../../src/host/sessions/sessionStore';
import { Build, fakeClock } from './support/builders';
import { entriesOf, sampleConversation } from './support/sessionSamples';

const KEY = 'sk-ant-api03-THISISTHEKEYTHISISTHEKEY';

describe('session store', () => {
  let root: string;
  let store: SessionStore;
  let clock: ReturnType<typeof fakeClock>;
  beforeEach(async () => {
    root = await fsp.mkdtemp(join(tmpdir(), 'cp-store-'));
    clock = fakeClock(Date.UTC(2026, 10, 21, 23, 59, 0));
    let seed = 0;
    store = SessionStore.inGlobalStorage(root, {
      now: () => clock.now(),
      random: () => (seed += 0.137) % 1,
      secrets: () => [KEY],
    });
  });
  afterEach(async () => {
    await fsp.rm(root, { recursive: true, force: true });
  });

  it('makes time-sortable ids and refuses anything else as an id', () => {
    assert.equal(newSessionId(Date.UTC(2026, 10, 21, 23, 59, 0, 500), 0.5), '2026-11-21T23-59-00-i00000');
    assert.ok(newSessionId(1000, 0.99) < newSessionId(2000, 0));
    for (const bad of ['../x', 'a/b', '', 'x.bak-1', '.hidden'])
      assert.throws(() => store.pathOf(bad), /Not a session id/);
  });

  it('creates, appends, lists, reopens: no completed message is lost and the key is never written', async () => {
    const { id, writer } = await store.create({ model: 'claude-sonnet-4-5', workspace: 'demo' });
    assert.equal(store.pathOf(id), join(root, 'sessions', `${id}.jsonl`));
    const conv = sampleConversation();
    for (const e of entriesOf(conv).slice(1)) await writer.append(e);
    const b = new Build('k');
    await writer.append({
      type: 'message',
      at: clock.now() + 1,
      message: b.message('user', [b.text(`my key: ${KEY}`)], 3),
    });
    await writer.close();
    assert.ok(!readFileSync(store.pathOf(id), 'utf8').includes(KEY));
    clock.advance(5000);
    const second = await store.create({ model: 'claude-haiku-4-5', workspace: 'demo', title: 'Second one' });
    await second.writer.close();
    const list = await store.list();
    assert.deepEqual(
      list.map((s) => s.id),
      [second.id, id],
      'newest activity first',
    );
    const first = list[1];
    assert.ok(first);
    assert.equal(first.title, 'please read a.ts and explain');
    assert.equal(first.turns, 3);
    assert.equal(first.hasMessages, true);
    assert.equal(first.model, 'claude-sonnet-4-5');
    assert.equal(first.damaged, false);
    assert.ok(first.sizeBytes > 500);
    assert.equal(list.find((s) => s.id === second.id)?.title, 'Second one');
    const opened = await store.open(id);
    assert.ok(opened.ok, opened.ok ? '' : opened.error);
    assert.equal(opened.report, undefined);
    assert.deepEqual(opened.session.messages.slice(0, conv.length), conv);
    const again = await store.open(id);
    assert.ok(!again.ok && /already open/.test(again.error));
    await opened.writer.close();
  });

  it('lists a damaged file with a flag, and opening it repairs it and reports the backup', async () => {
    await fsp.mkdir(store.dir, { recursive: true });
    const id = '2026-11-20T10-00-00-aaaaaa';
    const good = entriesOf(sampleConversation()).map((e) => encodeEntry(e));
    await fsp.writeFile(
      store.pathOf(id),
      `${good.slice(0, 3).join('\n')}\n\u0000\u0000garbage\n${good.slice(3).join('\n')}\n{"type":"mess`,
    );
    await fsp.writeFile(store.pathOf('2026-11-20T09-00-00-bbbbbb'), 'only garbage\n');
    const list = await store.list();
    assert.deepEqual(list.map((s) => [s.id, s.damaged]).sort(), [
      ['2026-11-20T09-00-00-bbbbbb', true],
      [id, true],
    ]);
    assert.equal(list.find((s) => s.id === id)?.updatedAt, 1_700_000_006_000, 'the time of the last readable entry');
    const r = await store.open(id);
    assert.ok(r.ok);
    assert.deepEqual(checkInvariants(r.session), []);
    assert.ok(r.report?.backupPath && readFileSync(r.report.backupPath, 'utf8').endsWith('{"type":"mess'));
    assert.deepEqual(
      r.report.droppedLines.map((d) => d.line),
      [4, 9],
    );
    const at = clock.now();
    await r.writer.append({ type: 'recall', at, toolUseId: 'toolu_after', compactionIds: [] });
    await r.writer.close();
    const after = (await store.list()).find((s) => s.id === id);
    assert.equal(after?.damaged, false);
    assert.equal(after?.updatedAt, at, 'an entry appended after the repair is read');
    assert.equal((await store.list()).length, 2, 'backups are not listed as sessions');
    const bad = await store.open('2026-11-20T09-00-00-bbbbbb');
    assert.ok(!bad.ok && /no readable entry/.test(bad.error) && /\.bak-/.test(bad.error));
    const reopened = await store.open('2026-11-20T09-00-00-bbbbbb');
    assert.ok(!reopened.ok && !/already open/.test(reopened.error), 'a failed open releases the writer');
    assert.ok(!(await store.open('2026-01-01T00-00-00-nonexi')).ok);
  });

  it('exports JSONL that loads cleanly and Markdown with the user words, leaving the file as it is', async () => {
    const { id, writer } = await store.create({ model: 'claude-sonnet-4-5', workspace: 'demo' });
    for (const e of entriesOf(sampleConversation()).slice(1)) await writer.append(e);
    await writer.close();
    await fsp.appendFile(store.pathOf(id), 'garbage\n');
    const before = readFileSync(store.pathOf(id));
    const jsonl = join(root, 'out.jsonl');
    const md = join(root, 'out.md');
    assert.ok((await store.exportJsonl(id, jsonl)).ok);
    assert.ok((await store.exportMarkdown(id, md)).ok);
    assert.ok(readFileSync(store.pathOf(id)).equals(before));
    const lines = readFileSync(jsonl, 'utf8').trim().split('\n');
    assert.ok(lines.every((l) => decodeLine(l).ok));
    assert.equal(lines.length, 7);
    const text = readFileSync(md, 'utf8');
    assert.match(text, /please read a\.ts\nand explain/);
    assert.match(text, /thanks — now in French\?/);
    assert.match(text, /\*\*Tool call\*\* `read_file`/);
    assert.ok(!(await store.exportMarkdown('2026-01-01T00-00-00-nonexi', md)).ok);
  });

  it('deletes a session and its lock, keeps (and names) its backups, refuses while it is open', async () => {
    const { id, writer } = await store.create({ model: 'm', workspace: '' });
    const refused = await store.delete(id);
    assert.ok(!refused.ok && /close it/.test(refused.error));
    await writer.close();
    const backup = join(store.dir, `${id}.bak-2026-11-22T00-00-00-000Z.jsonl`);
    await fsp.writeFile(backup, 'x');
    await fsp.writeFile(`${store.pathOf(id)}.lock`, '999999999\n');
    const r = await store.delete(id);
    assert.ok(r.ok);
    assert.deepEqual(r.removed, [store.pathOf(id), `${store.pathOf(id)}.lock`]);
    assert.deepEqual(r.keptBackups, [backup]);
    assert.deepEqual(await fsp.readdir(store.dir), [`${id}.bak-2026-11-22T00-00-00-000Z.jsonl`]);
    assert.deepEqual(await store.list(), []);
    assert.ok(!(await store.delete(id)).ok);
  });
});
