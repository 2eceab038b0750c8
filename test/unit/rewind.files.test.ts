import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointJournal } from '../../src/core/rewind/checkpointJournal';
import { describeFilesPlan, planFilesRewind, withUnsavedConflicts } from '../../src/core/rewind/filesRewind';
import { decodeJournal, encodeEntry, JOURNAL_HEADER } from '../../src/core/rewind/journalCodec';
import { CheckpointStore } from '../../src/host/rewind/checkpointStore';
import { FileRewinder } from '../../src/host/rewind/fileRewinder';

let base: string;
let ws: string;
const show = (r: { path: string }) => r.path;

async function open(): Promise<CheckpointStore> {
  const opened = await CheckpointStore.open({ folder: join(base, 'cp'), roots: () => [ws] });
  assert.ok(opened.ok, opened.ok ? '' : opened.error);
  return opened.store;
}

const file = (rel: string) => join(ws, rel);
const read = (rel: string) => readFileSync(file(rel), 'utf8');
function put(rel: string, text: string): void {
  mkdirSync(join(file(rel), '..'), { recursive: true });
  writeFileSync(file(rel), text);
}

/** The agent's write of `rel` after checkpoint `m`, as the tools record it. */
async function agentWrites(store: CheckpointStore, m: string, rel: string, text: string | undefined): Promise<void> {
  const before = await store.beforeWrite(m, file(rel));
  assert.ok(before.ok, before.ok ? '' : before.error);
  if (text === undefined) rmSync(file(rel));
  else put(rel, text);
  const after = await store.afterWrite(m, file(rel));
  assert.ok(after.ok, after.ok ? '' : after.error);
}

/** Three turns: m1 edits a.ts and creates new.ts; m2 edits a.ts again and deletes old.ts; m3 edits b.ts. */
async function threeTurns(store: CheckpointStore): Promise<void> {
  put('a.ts', 'a v0');
  put('b.ts', 'b v0');
  put('old.ts', 'old v0');
  for (const m of ['m1', 'm2', 'm3']) await store.checkpoint(m);
  await agentWrites(store, 'm1', 'a.ts', 'a v1');
  await agentWrites(store, 'm1', 'src/new.ts', 'new v1');
  await agentWrites(store, 'm2', 'a.ts', 'a v2');
  await agentWrites(store, 'm2', 'old.ts', undefined);
  await agentWrites(store, 'm3', 'b.ts', 'b v1');
}

describe('rewinding files to a checkpoint (core/rewind/filesRewind.ts, host/rewind/fileRewinder.ts)', () => {
  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'rewind-files-')));
    ws = join(base, 'ws');
    mkdirSync(ws);
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('puts every file changed since the first message back: edits undone, created files removed, deleted files back; undo brings them forward', async () => {
    const store = await open();
    await threeTurns(store);
    const rewinder = new FileRewinder(store, show);
    const planned = await rewinder.plan('m1');
    assert.ok(planned.ok);
    assert.deepEqual(
      planned.plan.steps.map((s) => [s.path, s.to.kind, s.conflict ?? '']),
      [
        ['a.ts', 'content', ''],
        ['src/new.ts', 'absent', ''],
        ['old.ts', 'content', ''],
        ['b.ts', 'content', ''],
      ],
    );
    assert.match(
      describeFilesPlan(planned.plan, show),
      /^4 files go back \(a\.ts, src\/new\.ts, old\.ts and 1 more\)\.$/,
    );
    const applied = await rewinder.apply('rw1', planned.plan, false);
    assert.equal(applied.error, undefined);
    assert.equal(applied.done.length, 4);
    assert.equal(read('a.ts'), 'a v0');
    assert.equal(read('b.ts'), 'b v0');
    assert.equal(read('old.ts'), 'old v0');
    assert.ok(!existsSync(file('src/new.ts')));
    // Undo: every file forward to what it was just before the rewind.
    const undo = await rewinder.planUndo('rw1');
    assert.ok(undo?.ok);
    await rewinder.applyUndo('rw1', undo.plan, false);
    assert.equal(read('a.ts'), 'a v2');
    assert.equal(read('src/new.ts'), 'new v1');
    assert.ok(!existsSync(file('old.ts')));
    assert.equal(read('b.ts'), 'b v1');
    // A second undo is refused; the journal read back from disk says the same.
    const again = await rewinder.planUndo('rw1');
    assert.ok(again && !again.ok);
    const reopened = await open();
    assert.equal(reopened.journal.rewind('rw1')?.undone, true);
  });

  it('a file with unsaved changes in an editor is a conflict saying so, whatever is on disk', async () => {
    const store = await open();
    await threeTurns(store);
    put('a.ts', 'a edited by hand');
    const planned = await new FileRewinder(store, show).plan('m1');
    assert.ok(planned.ok);
    const editing = new Set(['a.ts', 'src/new.ts']);
    const marked = withUnsavedConflicts(planned.plan, (r) => editing.has(r.path), show);
    const byPath = new Map(marked.steps.map((s) => [s.path, s.conflict]));
    assert.equal(byPath.get('src/new.ts'), 'src/new.ts has unsaved changes in an editor');
    assert.match(
      byPath.get('a.ts') ?? '',
      /^a\.ts was changed since Claude .*; it also has unsaved changes in an editor$/,
    );
    assert.equal(byPath.get('old.ts'), undefined, 'a file with no editor open is as it was');
    assert.equal(marked.steps.length, planned.plan.steps.length);
    assert.match(describeFilesPlan(marked, show), /2 files changed by hand since/);
  });

  it('rewinds to a later message only what changed since it', async () => {
    const store = await open();
    await threeTurns(store);
    const planned = await new FileRewinder(store, show).plan('m3');
    assert.ok(planned.ok);
    assert.deepEqual(
      planned.plan.steps.map((s) => s.path),
      ['b.ts'],
    );
  });

  it('a file changed by hand since Claude left it is a conflict: skipped unless overwritten; its content is kept for the undo', async () => {
    const store = await open();
    await threeTurns(store);
    put('a.ts', 'a edited by hand');
    const rewinder = new FileRewinder(store, show);
    const planned = await rewinder.plan('m1');
    assert.ok(planned.ok);
    const a = planned.plan.steps.find((s) => s.path === 'a.ts');
    assert.match(a?.conflict ?? '', /a\.ts was changed since Claude \(or a rewind\) last left it/);
    assert.match(describeFilesPlan(planned.plan, show), /1 file changed by hand since/);
    const skipped = await rewinder.apply('rw1', planned.plan, false);
    assert.deepEqual(
      skipped.skipped.map((s) => s.path),
      ['a.ts'],
    );
    assert.equal(read('a.ts'), 'a edited by hand');
    assert.equal(read('b.ts'), 'b v0');
    // Overwriting, in a second rewind: the hand edit comes back with the undo.
    const second = await rewinder.plan('m1');
    assert.ok(second.ok);
    await rewinder.apply('rw2', second.plan, true);
    assert.equal(read('a.ts'), 'a v0');
    const undo = await rewinder.planUndo('rw2');
    assert.ok(undo?.ok);
    await rewinder.applyUndo('rw2', undo.plan, false);
    assert.equal(read('a.ts'), 'a edited by hand');
  });

  it('an undo asks about a file changed by hand since the rewind, by the same rule', async () => {
    const store = await open();
    await threeTurns(store);
    const rewinder = new FileRewinder(store, show);
    const planned = await rewinder.plan('m1');
    assert.ok(planned.ok);
    await rewinder.apply('rw1', planned.plan, false);
    put('b.ts', 'b changed after the rewind');
    const undo = await rewinder.planUndo('rw1');
    assert.ok(undo?.ok);
    assert.match(undo.plan.steps.find((s) => s.path === 'b.ts')?.conflict ?? '', /changed since/);
    await rewinder.applyUndo('rw1', undo.plan, false);
    assert.equal(read('b.ts'), 'b changed after the rewind');
    assert.equal(read('a.ts'), 'a v2');
  });

  it('a file whose content then was not kept cannot go back, and says why; an unknown checkpoint has no plan', async () => {
    const j = new CheckpointJournal();
    j.apply({ type: 'checkpoint', messageId: 'm1' });
    j.apply({
      type: 'change',
      checkpoint: 'm1',
      root: '/ws',
      path: 'big.bin',
      via: 'write',
      before: { kind: 'too-large', size: 5_000_000, cap: 'file', capBytes: 2_000_000 },
      after: { kind: 'absent' },
    });
    const p = planFilesRewind(j, 'm1', () => ({ kind: 'absent' }), show);
    assert.ok(p.ok);
    assert.equal(p.plan.steps.length, 0);
    assert.match(p.plan.cannot[0]?.why ?? '', /big\.bin .* larger than/);
    const none = planFilesRewind(j, 'mX', () => ({ kind: 'absent' }), show);
    assert.ok(!none.ok && /No file checkpoint was kept/.test(none.reason));
  });

  it('rewind and undo lines round-trip through checkpoints.jsonl', () => {
    const lines = [
      JOURNAL_HEADER,
      { type: 'checkpoint' as const, messageId: 'm1' },
      {
        type: 'rewind' as const,
        id: 'rw1',
        checkpoint: 'm1',
        files: [{ root: '/ws', path: 'a.ts', before: { kind: 'absent' as const }, after: { kind: 'absent' as const } }],
      },
      { type: 'undo' as const, id: 'rw1' },
    ].map(encodeEntry);
    const { journal, skipped } = decodeJournal(`${lines.join('\n')}\n`);
    assert.deepEqual(skipped, []);
    assert.equal(journal.rewind('rw1')?.undone, true);
    const bad = decodeJournal(`${lines.slice(0, 2).join('\n')}\n{"type":"undo","id":"nope"}\n`);
    assert.equal(bad.skipped.length, 1);
  });
});
