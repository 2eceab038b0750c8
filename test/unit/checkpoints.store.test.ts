import { strict as assert } from 'node:assert';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileState } from '../../src/core/rewind/fileState';
import { sha256Of } from '../../src/host/rewind/blobStore';
import { CheckpointStore, type CheckpointLimits } from '../../src/host/rewind/checkpointStore';

let base: string;
let ws: string;
let folder: string;

async function openStore(limits: Partial<CheckpointLimits> = {}, exclude = {}): Promise<CheckpointStore> {
  const opened = await CheckpointStore.open({ folder, roots: () => [ws], exclude: () => exclude, limits });
  assert.ok(opened.ok, opened.ok ? '' : opened.error);
  assert.deepEqual(opened.skipped, []);
  return opened.store;
}

function put(rel: string, data: string | Uint8Array): string {
  const abs = join(ws, rel);
  mkdirSync(join(abs, '..'), { recursive: true });
  writeFileSync(abs, data);
  return abs;
}

const blobNames = (): string[] => {
  try {
    return readdirSync(join(folder, 'blobs')).sort();
  } catch {
    return [];
  }
};

/** The state `beforeWrite` recorded, asserting it was recorded now. */
async function before(store: CheckpointStore, messageId: string, abs: string): Promise<FileState> {
  const r = await store.beforeWrite(messageId, abs);
  assert.ok(r.ok, r.ok ? '' : r.error);
  assert.equal(r.recorded, true);
  return r.change.before;
}

describe('checkpoints (host): CheckpointStore', () => {
  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'checkpoints-')));
    ws = join(base, 'ws');
    folder = join(base, 'session.files', 'checkpoints');
    mkdirSync(ws);
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('keeps the same content once (dedup), and a file once per checkpoint', async () => {
    const store = await openStore();
    const a = put('a.txt', 'same words\n');
    const b = put('deep/b.txt', 'same words\n');
    const sa = await before(store, 'm1', a);
    const sb = await before(store, 'm1', b);
    assert.deepEqual(sa, { kind: 'content', sha256: sha256Of(Buffer.from('same words\n')), size: 11 });
    assert.deepEqual(sb, sa);
    assert.deepEqual(blobNames(), [sha256Of(Buffer.from('same words\n'))]);
    assert.equal(store.totalBytes, 11);
    writeFileSync(a, 'changed');
    const again = await store.beforeWrite('m1', a);
    assert.ok(again.ok && !again.recorded, 'the second write of the checkpoint keeps the first prior state');
    assert.deepEqual(again.change.before, sa);
    const lines = readFileSync(join(folder, 'checkpoints.jsonl'), 'utf8').trim().split('\n');
    assert.deepEqual(
      lines.map((l) => (JSON.parse(l) as { type: string }).type),
      ['header', 'checkpoint', 'change', 'change'],
    );
    const next = await before(store, 'm2', a);
    assert.equal(next.kind, 'content');
    assert.equal(blobNames().length, 2);
  });

  it('does not keep a file over the per-file cap, and says so', async () => {
    const store = await openStore({ maxFileBytes: 10 });
    const fits = await before(store, 'm1', put('ten.txt', '0123456789'));
    assert.equal(fits.kind, 'content');
    const r = await store.beforeWrite('m1', put('big.bin', '0123456789X'));
    assert.ok(r.ok);
    assert.deepEqual(r.change.before, { kind: 'too-large', size: 11, cap: 'file', capBytes: 10 });
    assert.equal(
      r.notice,
      'Checkpoint: big.bin (11 B) is larger than the 10 B a checkpoint keeps of one file; its content before this change was not saved, so a rewind cannot put it back.',
    );
    assert.equal(blobNames().length, 1);
  });

  it('stops keeping at the session total cap, and says so; content already kept still is', async () => {
    const store = await openStore({ maxTotalBytes: 15 });
    assert.equal((await before(store, 'm1', put('a', 'aaaaaaaaaa'))).kind, 'content');
    const full = await store.beforeWrite('m1', put('b', 'bbbbbbbbbb'));
    assert.ok(full.ok);
    assert.deepEqual(full.change.before, {
      kind: 'too-large',
      size: 10,
      cap: 'session',
      capBytes: 15,
      sha256: sha256Of(Buffer.from('bbbbbbbbbb')),
    });
    assert.match(
      full.notice ?? '',
      /^Checkpoint: this session's checkpoint storage is full \(15 B\), so b \(10 B\) was not kept/,
    );
    assert.equal(
      (await before(store, 'm1', put('c', 'aaaaaaaaaa'))).kind,
      'content',
      'the same bytes take no more room',
    );
    assert.equal(store.totalBytes, 10);
    const reopened = await openStore({ maxTotalBytes: 15 });
    assert.equal(reopened.totalBytes, 10, 'the total is counted again from the blobs');
  });

  it('keeps a binary file byte for byte', async () => {
    const bytes = Uint8Array.from([...Array(256).keys(), 0xff, 0xfe, 0xc3, 0x28, 0x00, 0xed, 0xa0, 0x80]);
    const store = await openStore();
    const state = await before(store, 'm1', put('img.bin', bytes));
    assert.ok(state.kind === 'content');
    assert.equal(state.size, bytes.byteLength);
    const back = await store.readBlob(state.sha256);
    assert.ok(back.ok);
    assert.deepEqual(Buffer.from(back.bytes), Buffer.from(bytes));
    assert.deepEqual(readFileSync(join(folder, 'blobs', state.sha256)), Buffer.from(bytes));
  });

  it('records a created file as absent before, and a deleted file with its content', async () => {
    const store = await openStore();
    const created = join(ws, 'new', 'dir', 'made.ts');
    assert.deepEqual(await before(store, 'm1', created), { kind: 'absent' });
    put('new/dir/made.ts', 'export {};\n');
    const after = await store.afterWrite('m1', created);
    assert.ok(after.ok);
    assert.equal(after.change.after?.kind, 'content');

    const doomed = put('old.ts', 'old content');
    const prior = await before(store, 'm1', doomed);
    unlinkSync(doomed);
    const gone = await store.afterWrite('m1', doomed);
    assert.ok(gone.ok);
    assert.deepEqual(gone.change.after, { kind: 'absent' });
    assert.ok(prior.kind === 'content');
    const kept = await store.readBlob(prior.sha256);
    assert.ok(kept.ok);
    assert.equal(Buffer.from(kept.bytes).toString('utf8'), 'old content');

    const unrecorded = await store.afterWrite('m1', put('other.ts', 'x'));
    assert.ok(!unrecorded.ok);
    assert.match(unrecorded.error, /No change of other\.ts was recorded after checkpoint m1/);
  });

  it('refuses a symbolic link and a path below a linked folder, and records them as refused', async () => {
    const store = await openStore();
    put('real/target.txt', 'target');
    symlinkSync(join(ws, 'real', 'target.txt'), join(ws, 'link.txt'));
    symlinkSync(join(ws, 'real'), join(ws, 'linked'));
    const outside = join(base, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret'), 'not yours');
    symlinkSync(outside, join(ws, 'out'));

    const file = await store.beforeWrite('m1', join(ws, 'link.txt'));
    assert.ok(file.ok && file.recorded);
    assert.deepEqual(file.change.before, { kind: 'refused', why: 'symlink', detail: 'it is a symbolic link' });
    assert.match(file.notice ?? '', /^Checkpoint: link\.txt was not kept \(it is a symbolic link\)/);
    const parent = await store.beforeWrite('m1', join(ws, 'linked', 'target.txt'));
    assert.ok(parent.ok);
    assert.deepEqual(parent.change.before, {
      kind: 'refused',
      why: 'symlink',
      detail: 'its folder linked is a symbolic link',
    });
    const out = await store.beforeWrite('m1', join(ws, 'out', 'secret'));
    assert.ok(out.ok);
    assert.equal(out.change.before.kind, 'refused');
    assert.deepEqual(blobNames(), [], 'nothing behind a link was read');
  });

  it('records a file once when two calls race, and never lets racing blobs pass the total cap', async () => {
    const store = await openStore({ maxTotalBytes: 15 });
    const a = put('a', 'aaaaaaaaaa');
    const b = put('b', 'bbbbbbbbbb');
    const results = await Promise.all([
      store.beforeWrite('m1', a),
      store.beforeWrite('m1', a),
      store.beforeWrite('m1', b),
    ]);
    assert.ok(results.every((r) => r.ok));
    assert.deepEqual(
      results.map((r) => r.ok && r.recorded),
      [true, false, true],
    );
    assert.equal(store.journal.changes.length, 2);
    assert.deepEqual(store.journal.changes.map((c) => c.before.kind).sort(), ['content', 'too-large']);
    assert.equal(blobNames().length, 1);
  });

  it('finds a file through a workspace folder given by a link, and refuses a folder as a file', async () => {
    const link = join(base, 'ws-link');
    symlinkSync(ws, link);
    const opened = await CheckpointStore.open({ folder, roots: () => [link] });
    assert.ok(opened.ok);
    const r = await opened.store.beforeWrite('m1', join(link, 'src', 'a.ts'));
    assert.ok(r.ok);
    assert.deepEqual([r.change.root, r.change.path, r.change.before.kind], [ws, 'src/a.ts', 'absent']);
    mkdirSync(join(ws, 'folder'));
    const dir = await opened.store.beforeWrite('m1', join(ws, 'folder'));
    assert.ok(dir.ok);
    assert.deepEqual(dir.change.before, { kind: 'refused', why: 'not-a-file', detail: 'it is a folder' });
  });

  it('refuses a path outside the workspace folders, recording nothing', async () => {
    const store = await openStore();
    writeFileSync(join(base, 'elsewhere.txt'), 'x');
    for (const path of [join(base, 'elsewhere.txt'), join(ws, '..', 'elsewhere.txt'), ws]) {
      const r = await store.beforeWrite('m1', path);
      assert.ok(!r.ok, path);
      assert.match(r.error, /outside the workspace folders|is a workspace folder/);
    }
    assert.deepEqual(store.journal.changes, []);
    assert.deepEqual(readdirSync(base).sort(), ['elsewhere.txt', 'ws'], 'no storage was created');
  });

  it('finds what a command created, modified and deleted, with the prior contents kept', async () => {
    const store = await openStore({}, { '**/*.log': true });
    put('keep.ts', 'unchanged');
    put('edit.ts', 'v1');
    put('touch.ts', 'same bytes');
    put('doomed.ts', 'last words');
    put('.gitignore', 'dist/\n');
    put('node_modules/pkg/index.js', 'module');
    const snap1 = await store.snapshotWorkspace();
    assert.equal(snap1.partial, undefined);
    assert.deepEqual([...snap1.files.values()].map((f) => f.path).sort(), [
      '.gitignore',
      'doomed.ts',
      'edit.ts',
      'keep.ts',
      'touch.ts',
    ]);

    // The "command": sizes change where content does, so no timestamp granularity is involved.
    put('edit.ts', 'version 2');
    utimesSync(join(ws, 'touch.ts'), 1_000_000, 1_000_000);
    unlinkSync(join(ws, 'doomed.ts'));
    put('src/created.ts', 'new file');
    put('node_modules/pkg/index.js', 'module changed');
    put('dist/out.js', 'built');
    put('debug.log', 'excluded');
    mkdirSync(join(ws, '.git'));
    writeFileSync(join(ws, '.git', 'index'), 'never looked at');
    const snap2 = await store.snapshotWorkspace();

    const diff = store.diffSnapshots(snap1, snap2);
    assert.deepEqual(
      diff.changes.map((c) => [c.kind, c.path]),
      [
        ['deleted', 'doomed.ts'],
        ['modified', 'edit.ts'],
        ['created', 'src/created.ts'],
      ],
    );
    const recorded = await store.recordCommand('m1', diff);
    assert.equal(recorded.error, undefined);
    assert.deepEqual(recorded.notices, []);
    assert.deepEqual(
      recorded.changes.map((c) => [c.path, c.via, c.before.kind, c.after?.kind]),
      [
        ['doomed.ts', 'command', 'content', 'absent'],
        ['edit.ts', 'command', 'content', 'content'],
        ['src/created.ts', 'command', 'absent', 'content'],
      ],
    );
    for (const [path, words] of [
      ['doomed.ts', 'last words'],
      ['edit.ts', 'v1'],
    ]) {
      const at = store.journal.stateAt({ root: ws, path: path as string }, 'm1');
      assert.ok(at.ok && at.changed && at.state.kind === 'content');
      const blob = await store.readBlob(at.state.sha256);
      assert.ok(blob.ok);
      assert.equal(Buffer.from(blob.bytes).toString('utf8'), words);
    }

    // A later write of the same checkpoint keeps the prior state the command recorded.
    const again = await store.beforeWrite('m1', join(ws, 'edit.ts'));
    assert.ok(again.ok && !again.recorded);
  });

  it('says a snapshot is partial past its file cap, and does not guess beyond it', async () => {
    const store = await openStore({ maxSnapshotFiles: 2 });
    put('a', '1');
    put('b', '2');
    put('c', '3');
    const snap1 = await store.snapshotWorkspace();
    assert.deepEqual(snap1.partial, { last: { root: ws, path: 'b' }, maxFiles: 2, cause: 'cap' });
    unlinkSync(join(ws, 'a'));
    const snap2 = await store.snapshotWorkspace();
    assert.deepEqual(
      [...snap2.files.values()].map((f) => f.path),
      ['b', 'c'],
    );
    const diff = store.diffSnapshots(snap1, snap2);
    assert.deepEqual(
      diff.changes.map((c) => [c.kind, c.path]),
      [['deleted', 'a']],
    );
    assert.equal(diff.notJudged, 1, 'c: created, or only beyond the first snapshot?');
    assert.match(diff.notice ?? '', /more than 2 files/);
    const recorded = await store.recordCommand('m1', diff);
    assert.deepEqual(recorded.notices, [diff.notice]);
  });

  it('reads its journal back, skipping a damaged line with a reason, and writes on after it', async () => {
    const store = await openStore();
    const a = put('a.ts', 'A');
    await store.checkpoint('m1');
    await before(store, 'm1', a);
    await store.checkpoint('m2');
    appendFileSync(join(folder, 'checkpoints.jsonl'), '{"type":"change","checkpoint":"m2","root"'); // a crash mid-line

    const opened = await CheckpointStore.open({ folder, roots: () => [ws] });
    assert.ok(opened.ok);
    assert.equal(opened.skipped.length, 1);
    assert.equal(opened.skipped[0]?.line, 5);
    assert.match(opened.skipped[0]?.reason ?? '', /^not JSON/);
    const journal = opened.store.journal;
    assert.deepEqual(journal.checkpoints, ['m1', 'm2']);
    assert.deepEqual(journal.changes, store.journal.changes);

    writeFileSync(a, 'AA');
    await before(opened.store, 'm2', a);
    const third = await CheckpointStore.open({ folder, roots: () => [ws] });
    assert.ok(third.ok);
    assert.deepEqual(
      third.skipped.map((s) => s.line),
      [5],
      'the next entry starts on a line of its own',
    );
    const at = (m: string) => {
      const r = third.store.journal.stateAt({ root: ws, path: 'a.ts' }, m);
      assert.ok(r.ok && r.changed);
      return r.state;
    };
    assert.deepEqual(at('m1'), { kind: 'content', sha256: sha256Of(Buffer.from('A')), size: 1 });
    assert.deepEqual(at('m2'), { kind: 'content', sha256: sha256Of(Buffer.from('AA')), size: 2 });
  });
});
