import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { CheckpointJournal, type JournalEntry } from '../../src/core/rewind/checkpointJournal';
import { notKeptNotice, restorable, sameContent, type FileState } from '../../src/core/rewind/fileState';
import { decodeJournal, encodeEntry, JOURNAL_HEADER } from '../../src/core/rewind/journalCodec';
import {
  covers,
  diffSnapshots,
  walkOrder,
  type SnapshotFile,
  type WorkspaceSnapshot,
} from '../../src/core/rewind/snapshotDiff';

const ROOT = '/w';
const hash = (c: string): string => Buffer.from(c).toString('hex').repeat(64).slice(0, 64);
const content = (c: string, size = 10): FileState => ({ kind: 'content', sha256: hash(c), size });
const absent: FileState = { kind: 'absent' };
const ref = (path: string) => ({ root: ROOT, path });

function journalOf(entries: readonly JournalEntry[]): CheckpointJournal {
  const journal = new CheckpointJournal();
  for (const e of entries) assert.equal(journal.apply(e), undefined, JSON.stringify(e));
  return journal;
}

/** m1: a.ts A→B, new.ts created; m2: nothing; m3: a.ts B→C, old.ts deleted. */
const HISTORY: readonly JournalEntry[] = [
  JOURNAL_HEADER,
  { type: 'checkpoint', messageId: 'm1' },
  { type: 'change', checkpoint: 'm1', ...ref('src/a.ts'), via: 'write', before: content('a'), after: content('b') },
  { type: 'change', checkpoint: 'm1', ...ref('new.ts'), via: 'write', before: absent },
  { type: 'after', checkpoint: 'm1', ...ref('new.ts'), state: content('n') },
  { type: 'checkpoint', messageId: 'm2' },
  { type: 'checkpoint', messageId: 'm3' },
  { type: 'change', checkpoint: 'm3', ...ref('src/a.ts'), via: 'command', before: content('b'), after: content('c') },
  { type: 'change', checkpoint: 'm3', ...ref('old.ts'), via: 'command', before: content('o'), after: absent },
];

describe('checkpoints (core): the journal of file changes', () => {
  it('answers what a file was at a checkpoint: the first change after it, else as it is now', () => {
    const journal = journalOf(HISTORY);
    assert.deepEqual(journal.checkpoints, ['m1', 'm2', 'm3']);
    const at = (path: string, m: string) => {
      const r = journal.stateAt(ref(path), m);
      assert.ok(r.ok);
      return r.changed ? r.state : 'now';
    };
    assert.deepEqual(at('src/a.ts', 'm1'), content('a'));
    assert.deepEqual(
      at('src/a.ts', 'm2'),
      content('b'),
      'm2 had no change: the next one (m3) recorded the file before it',
    );
    assert.deepEqual(at('src/a.ts', 'm3'), content('b'));
    assert.deepEqual(at('new.ts', 'm1'), absent, 'a created file did not exist');
    assert.equal(at('new.ts', 'm2'), 'now');
    assert.deepEqual(at('old.ts', 'm1'), content('o'), 'a deleted file had its content');
    assert.equal(at('untouched.ts', 'm1'), 'now');
    const unknown = journal.stateAt(ref('src/a.ts'), 'm9');
    assert.ok(!unknown.ok);
    assert.match(unknown.reason, /no checkpoint m9/);
  });

  it('lists the files changed after a checkpoint, with their state then and their newest state', () => {
    const journal = journalOf(HISTORY);
    const all = journal.changedAfter('m1');
    assert.ok(all.ok);
    assert.deepEqual(
      all.files.map((f) => [f.path, f.before, f.after, f.changes.length]),
      [
        ['src/a.ts', content('a'), content('c'), 2],
        ['new.ts', absent, content('n'), 1],
        ['old.ts', content('o'), absent, 1],
      ],
    );
    const late = journal.changedAfter('m2');
    assert.ok(late.ok);
    assert.deepEqual(
      late.files.map((f) => [f.path, f.before]),
      [
        ['src/a.ts', content('b')],
        ['old.ts', content('o')],
      ],
    );
    assert.equal(journal.changedAfter('nope').ok, false);
  });

  it('keeps one change per file per checkpoint; a later write only updates its new state', () => {
    const journal = journalOf(HISTORY.slice(0, 3));
    const again: JournalEntry = {
      type: 'change',
      checkpoint: 'm1',
      ...ref('src/a.ts'),
      via: 'write',
      before: content('x'),
    };
    assert.match(journal.apply(again) ?? '', /already has a change/);
    assert.equal(
      journal.apply({ type: 'after', checkpoint: 'm1', ...ref('src/a.ts'), state: content('z') }),
      undefined,
    );
    assert.deepEqual(journal.changeAt('m1', ref('src/a.ts'))?.before, content('a'));
    assert.deepEqual(journal.changeAt('m1', ref('src/a.ts'))?.after, content('z'));
    assert.match(journal.apply({ type: 'after', checkpoint: 'm1', ...ref('x'), state: absent }) ?? '', /no change/);
    assert.match(journal.apply({ type: 'checkpoint', messageId: 'm1' }) ?? '', /listed twice/);
  });

  it('adds a checkpoint whose line was lost where its first change stands', () => {
    const journal = journalOf([
      { type: 'checkpoint', messageId: 'm1' },
      { type: 'change', checkpoint: 'm2', ...ref('a'), via: 'write', before: content('a') },
    ]);
    assert.deepEqual(journal.checkpoints, ['m1', 'm2']);
    const r = journal.stateAt(ref('a'), 'm1');
    assert.ok(r.ok && r.changed);
    assert.deepEqual(r.state, content('a'));
  });
});

describe('checkpoints (core): checkpoints.jsonl', () => {
  it('reads back what it wrote', () => {
    const text = HISTORY.map(encodeEntry).join('\n') + '\n';
    const { journal, skipped } = decodeJournal(text);
    assert.deepEqual(skipped, []);
    assert.deepEqual(journal.changes, journalOf(HISTORY).changes);
    assert.deepEqual(journal.checkpoints, ['m1', 'm2', 'm3']);
  });

  it('skips a corrupt line with its number and a reason, and reads the rest', () => {
    const lines = HISTORY.map(encodeEntry);
    lines.splice(3, 0, '{"type":"change","checkpoint":"m1"'); // a crash mid-append
    lines.splice(5, 0, encodeEntry({ type: 'checkpoint', messageId: 'm0' }).replace('}', ',"extra":1}'));
    const badHash = encodeEntry({
      type: 'change',
      checkpoint: 'm3',
      ...ref('h'),
      via: 'write',
      before: { kind: 'content', sha256: 'NOTAHASH', size: 1 },
    });
    lines.push(badHash, '', '[]');
    const { journal, skipped } = decodeJournal(lines.join('\n'));
    assert.deepEqual(
      skipped.map((s) => s.line),
      [4, 6, 12, 14],
    );
    assert.match(skipped[0]?.reason ?? '', /^not JSON/);
    assert.match(skipped[1]?.reason ?? '', /extra/);
    assert.match(skipped[2]?.reason ?? '', /^before\.sha256: /);
    assert.equal(journal.changes.length, 4, 'every valid change is read');
    assert.deepEqual(journal.checkpoints, ['m1', 'm2', 'm3']);
  });

  it('reads back any journal it encodes (property)', () => {
    const state = fc.oneof(
      fc.constant<FileState>(absent),
      fc.constantFrom('a', 'b', 'c').map((c) => content(c)),
      fc.nat(10_000).map((size): FileState => ({ kind: 'too-large', size, cap: 'file', capBytes: 5 })),
      fc.constant<FileState>({ kind: 'refused', why: 'symlink', detail: 'it is a symbolic link' }),
    );
    const entry = fc.oneof(
      fc.constantFrom('m1', 'm2', 'm3').map((messageId): JournalEntry => ({ type: 'checkpoint', messageId })),
      fc
        .record({
          m: fc.constantFrom('m1', 'm2', 'm3'),
          p: fc.constantFrom('a', 'b/ü.bin', 'c d'),
          before: state,
          after: fc.option(state),
        })
        .map(({ m, p, before, after }): JournalEntry => ({
          type: 'change',
          checkpoint: m,
          ...ref(p),
          via: 'write',
          before,
          ...(after === null ? {} : { after }),
        })),
      fc
        .record({ m: fc.constantFrom('m1', 'm2', 'm3'), p: fc.constantFrom('a', 'b/ü.bin'), s: state })
        .map(({ m, p, s }): JournalEntry => ({ type: 'after', checkpoint: m, ...ref(p), state: s })),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 30 }), (entries) => {
        const live = new CheckpointJournal();
        const refused = entries.filter((e) => live.apply(e) !== undefined).length;
        const { journal, skipped } = decodeJournal(entries.map(encodeEntry).join('\n'));
        assert.equal(skipped.length, refused);
        assert.deepEqual(journal.changes, live.changes);
        assert.deepEqual(journal.checkpoints, live.checkpoints);
      }),
    );
  });
});

describe('checkpoints (core): notices and states', () => {
  it('says why a prior content was not kept, and nothing when it was', () => {
    assert.equal(notKeptNotice('a.ts', content('a')), undefined);
    assert.equal(notKeptNotice('a.ts', absent), undefined);
    assert.equal(
      notKeptNotice('assets/video.mp4', { kind: 'too-large', size: 14_200_000, cap: 'file', capBytes: 2_000_000 }),
      'Checkpoint: assets/video.mp4 (14.2 MB) is larger than the 2.0 MB a checkpoint keeps of one file; its content before this change was not saved, so a rewind cannot put it back.',
    );
    assert.match(
      notKeptNotice('a.ts', { kind: 'too-large', size: 1200, cap: 'session', capBytes: 200_000_000 }) ?? '',
      /^Checkpoint: this session's checkpoint storage is full \(200\.0 MB\), so a\.ts \(1\.2 KB\) was not kept: its content before this change was not saved/,
    );
    assert.equal(
      notKeptNotice('link', { kind: 'refused', why: 'symlink', detail: 'it is a symbolic link' }),
      'Checkpoint: link was not kept (it is a symbolic link); its content before this change was not saved, so a rewind cannot put it back.',
    );
  });

  it('knows which states a rewind can put back, and which say the same content', () => {
    assert.equal(restorable(absent), true);
    assert.equal(restorable(content('a')), true);
    assert.equal(restorable({ kind: 'too-large', size: 3, cap: 'file', capBytes: 1 }), false);
    assert.equal(restorable({ kind: 'refused', why: 'unreadable', detail: 'x' }), false);
    assert.equal(
      sameContent(content('a'), { kind: 'too-large', size: 10, cap: 'session', capBytes: 1, sha256: hash('a') }),
      true,
    );
    assert.equal(sameContent(content('a'), content('b')), false);
    assert.equal(sameContent(absent, absent), true);
    assert.equal(sameContent(absent, content('a')), false);
  });
});

function file(path: string, size: number, mtimeMs: number, sha?: string, root = ROOT): SnapshotFile {
  const state: FileState =
    sha === undefined ? { kind: 'too-large', size, cap: 'file', capBytes: 1 } : content(sha, size);
  return { root, path, size, mtimeMs, ctimeMs: mtimeMs, ...(sha === undefined ? {} : { sha256: hash(sha) }), state };
}

function snapshot(files: readonly SnapshotFile[], partial?: WorkspaceSnapshot['partial']): WorkspaceSnapshot {
  const map = new Map(files.map((f) => [`${f.root}\u0000${f.path}`, f]));
  return { roots: [ROOT], files: map, ...(partial ? { partial } : {}) };
}

describe('checkpoints (core): what a shell command changed', () => {
  it('finds created, modified and deleted files, and not a file only touched', () => {
    const before = snapshot([file('a', 1, 1, 'a'), file('b', 1, 1, 'b'), file('gone', 1, 1, 'g'), file('big', 9, 1)]);
    const after = snapshot([
      file('a', 1, 1, 'a'), // same stamp
      file('b', 1, 2, 'b'), // touched: same bytes
      file('big', 9, 2), // over the cap: its stamp is all there is
      file('new', 2, 2, 'n'),
      file('sub/x', 2, 2, 'x'),
    ]);
    const diff = diffSnapshots(before, after);
    assert.deepEqual(
      diff.changes.map((c) => [c.kind, c.path, c.before.kind, c.after.kind]),
      [
        ['modified', 'big', 'too-large', 'too-large'],
        ['deleted', 'gone', 'content', 'absent'],
        ['created', 'new', 'absent', 'content'],
        ['created', 'sub/x', 'absent', 'content'],
      ],
    );
    assert.equal(diff.notJudged, 0);
    assert.equal(diff.notice, undefined);
    const modified = diffSnapshots(snapshot([file('a', 1, 1, 'a')]), snapshot([file('a', 1, 5, 'z')]));
    assert.deepEqual(modified.changes[0]?.after, content('z', 1));
  });

  it('judges only what both snapshots cover when one stopped at its file cap', () => {
    const partial = { last: { root: ROOT, path: 'b/z' }, maxFiles: 3, cause: 'cap' as const };
    const before = snapshot([file('a', 1, 1, 'a'), file('b/y', 1, 1, 'y'), file('b/z', 1, 1, 'z')], partial);
    const after = snapshot([file('a', 1, 1, 'a'), file('b/z', 1, 1, 'z'), file('c', 1, 1, 'c'), file('b0', 1, 1, 'q')]);
    assert.ok(covers(before, { root: ROOT, path: 'b/a' }));
    assert.ok(!covers(before, { root: ROOT, path: 'b0' }), "'b' sorts before 'b0', and its files before it");
    const diff = diffSnapshots(before, after);
    assert.deepEqual(
      diff.changes.map((c) => [c.kind, c.path]),
      [['deleted', 'b/y']],
    );
    assert.equal(diff.notJudged, 2);
    assert.match(
      diff.notice ?? '',
      /2 files the command may have created or deleted could not be checked \(the workspace has more than 3 files/,
    );
  });

  it('orders paths as a depth-first walk in name order visits them', () => {
    const roots = ['/w', '/v'];
    const paths = ['a.txt', 'a/z', 'B', 'a/b/c', 'b'];
    const sorted = [...paths].sort((x, y) => walkOrder(roots, { root: '/w', path: x }, { root: '/w', path: y }));
    assert.deepEqual(sorted, ['B', 'a/b/c', 'a/z', 'a.txt', 'b']);
    assert.ok(walkOrder(roots, { root: '/w', path: 'z' }, { root: '/v', path: 'a' }) < 0);
  });
});
