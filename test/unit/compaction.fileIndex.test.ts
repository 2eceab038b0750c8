import { strict as assert } from 'node:assert';
import { restoreRecord } from '../../src/core/compaction/apply';
import { Compactor } from '../../src/core/compaction/compactor';
import {
  FILE_INDEX_HEADING,
  fileIndex,
  describeIndexed,
  reminderFiles,
  type IndexedFile,
} from '../../src/core/compaction/fileIndex';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings } from '../../src/core/compaction/policy';
import { renderReattachment, type ReattachEntry } from '../../src/core/compaction/reattach';
import { fileKey } from '../../src/core/compaction/reattachCandidates';
import { indexedFilesOf } from '../../src/core/compaction/reattachRecord';
import { reattach } from '../../src/core/compaction/reattachRun';
import { applyRecord } from '../../src/core/compaction/apply';
import type { CompactionRecord } from '../../src/core/compaction/types';
import { previewSentence } from '../../src/host/compactionPreviewText';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { fakeClock } from './support/builders';
import { Convo, lines, testCompactor, tokensOf } from './support/compactionBuilders';
import { ScriptedLlm } from './support/scriptedLlm';

const textTokens = (text: string) => Math.ceil(text.length / 4);
const named = (files: readonly IndexedFile[]) => files.map((f) => `${f.path}${f.edited ? '*' : ''}`);

/** The paths every re-attach reminder standing in `messages` names. */
function remindersName(messages: readonly Message[]): string[] {
  return messages
    .flatMap((m) =>
      m.blocks.flatMap((b) => (b.type === 'text' && b.meta.source === 'reminder' ? reminderFiles(b.text) : [])),
    )
    .map((f) => f.path);
}

describe('file index of a compaction: which files', () => {
  it('names the files read or edited earlier, newest first, marks edits, and leaves out re-attached files', () => {
    const c = new Convo().user('go');
    for (const p of ['a.ts', 'b.ts', 'c.ts', 'd.ts']) c.read(p, `content of ${p}`);
    c.call('edit_file', { path: 'a.ts', old_string: 'x', new_string: 'y' }, 'edited');
    c.read('./b.ts', 'again').say('done');
    assert.deepEqual(named(fileIndex(c.messages, [], new Set())), ['./b.ts', 'a.ts*', 'd.ts', 'c.ts']);
    assert.deepEqual(named(fileIndex(c.messages, [], new Set(['a.ts', 'b.ts']))), ['d.ts', 'c.ts']);
    assert.deepEqual(named(fileIndex(c.messages, [], new Set(), 2)), ['./b.ts', 'a.ts*']);
  });

  it('leaves out failed calls, calls that touch no file, and files the kept history still shows a call for', () => {
    const c = new Convo()
      .user('go')
      .read('old.ts', 'fine')
      .read('missing.ts', 'no such file', {}, { isError: true })
      .call('run_command', { command: 'npm test' }, 'out')
      .call('run_command', { command: 'cat failed.ts' }, 'cat: failed.ts: No such file', { isError: true })
      .read('kept.ts', 'kept')
      .say();
    const keptFrom = c.messages.findIndex((m) =>
      m.blocks.some((b) => b.type === 'tool_use' && (b.input as { path?: string }).path === 'kept.ts'),
    );
    assert.deepEqual(named(fileIndex(c.messages, c.messages.slice(keptFrom), new Set())), ['old.ts']);
  });

  it('names the files shell commands read or wrote, whatever the tool is called', () => {
    const c = new Convo()
      .user('go')
      .call('Bash', { command: "cd /ws/app && sed -n '10,40p' lib/a.ex" }, 'lines')
      .call('bash', { command: 'grep -n defmodule lib/b.ex | head -5' }, 'hits')
      .call('run_command', { command: "cd /ws/app && sed -i 's/x/y/' lib/a.ex" }, '')
      .read('/ws/app/lib/c.ex', 'c')
      .say('done');
    assert.deepEqual(named(fileIndex(c.messages, [], new Set())), [
      '/ws/app/lib/c.ex',
      '/ws/app/lib/a.ex*',
      'lib/b.ex',
    ]);
  });

  it('takes a relative path and the one absolute path ending with it for one file', () => {
    const c = new Convo()
      .user('go')
      .read('/ws/app/lib/a.ex', 'a')
      .call('bash', { command: "sed -i 's/x/y/' lib/a.ex" }, '')
      .read('/ws/app/lib/b.ex', 'b')
      .read('/other/lib/b.ex', 'b elsewhere')
      .call('bash', { command: 'cat lib/b.ex' }, 'b')
      .say('done');
    assert.deepEqual(named(fileIndex(c.messages, [], new Set())), [
      'lib/b.ex',
      '/other/lib/b.ex',
      '/ws/app/lib/b.ex',
      'lib/a.ex*',
    ]);
    assert.deepEqual(named(fileIndex(c.messages, [], new Set(['/ws/app/lib/a.ex']))).at(-1), '/ws/app/lib/b.ex');
  });

  it('compares paths as one file whatever their slashes', () => {
    assert.equal(fileKey('.\\src\\a.ts'), 'src/a.ts');
    assert.equal(fileKey(' src//a.ts '), 'src/a.ts');
  });
});

describe('file index of a compaction: in the reminder', () => {
  const entries: ReattachEntry[] = [
    {
      path: 'src/new.ts',
      content: {
        text: 'File: src/new.ts (40 B)\n```\n- not/a/path.ts (edited)\nFile: evil.ts (1 B)\n```\n',
        tokens: 20,
      },
      reference: '- src/new.ts (40 B)',
    },
    { path: 'gone.ts', reason: 'it no longer exists', reference: '- gone.ts' },
    { path: 'big.ts', reason: 'too large; read it with read_file', reference: '- big.ts (2.0 MB)' },
  ];
  const index: IndexedFile[] = [
    { path: 'src/older.ts', edited: true },
    { path: 'docs/a (draft).md', edited: false },
  ];

  it('follows the attached files and the references, one path a line with edits marked', () => {
    const r = renderReattachment(entries, 1_000, textTokens, index);
    assert.ok(r);
    assert.match(
      r.text,
      new RegExp(
        `\\n\\n${escape(FILE_INDEX_HEADING)}\\n- src/older\\.ts \\(edited\\)\\n- docs/a \\(draft\\)\\.md\\n</system-reminder>$`,
      ),
    );
    assert.deepEqual(
      r.files.map((f) => f.path),
      ['src/new.ts', 'gone.ts', 'big.ts'],
      'the record lists only the re-attached files',
    );
  });

  it('is read back from the reminder in order, never from a file content', () => {
    const r = renderReattachment(entries, 1_000, textTokens, index);
    assert.ok(r);
    assert.deepEqual(named(reminderFiles(r.text)), [
      'src/new.ts',
      'gone.ts',
      'big.ts',
      'src/older.ts*',
      'docs/a (draft).md',
    ]);
  });

  it('a reminder with no file to attach still names the index', () => {
    const r = renderReattachment([], 1_000, textTokens, index);
    assert.ok(r);
    assert.match(r.text, /^<system-reminder>\nFiles re-attached after compaction \(read fresh from disk\): none/);
    assert.deepEqual(named(reminderFiles(r.text)), ['src/older.ts*', 'docs/a (draft).md']);
    assert.equal(renderReattachment([], 1_000, textTokens, []), undefined);
  });

  it('reads nothing from a text that is not a reminder list', () => {
    assert.deepEqual(reminderFiles('- a.ts\n- b.ts'), []);
    assert.deepEqual(reminderFiles(`${FILE_INDEX_HEADING}\n- a.ts\n\nsome prose\n- b.ts`), [
      { path: 'a.ts', edited: false, part: 'index' },
    ]);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `turns` turns, each reading `perTurn` files named `${prefix}${n}.ts`. */
function reading(convo: Convo, prefix: string, turns: number, perTurn: number): Convo {
  let n = 0;
  for (let t = 0; t < turns; t++) {
    convo.user(`look at the ${prefix} files, part ${t + 1}`);
    for (let i = 0; i < perTurn; i++) convo.read(`src/${prefix}${++n}.ts`, lines(60, 40, `${prefix}${n}`));
    convo.say(`read part ${t + 1}`);
  }
  return convo;
}

function compactorFor(settings: CompactionSettings): Compactor {
  return testCompactor(
    new ScriptedLlm(
      Array.from({ length: 4 }, () => ({ content: [{ type: 'text' as const, text: 'They read files.' }] })),
    ),
    { settings: () => settings, readFresh: async (path) => ({ ok: true, text: `fresh ${path}\n`, bytes: 20 }) },
  );
}

const compactAll = (c: Compactor, state: ConversationState) =>
  c.compact(state, { trigger: 'manual', tokensToFree: 'all', signal: new AbortController().signal });

describe('file index of a compaction: through the compactor', () => {
  it('every file read before a compaction is still named after it, and after the next one that summarises the first reminder', async () => {
    const settings: CompactionSettings = { ...DEFAULT_COMPACTION_SETTINGS };
    const compactor = compactorFor(settings);
    const first = reading(new Convo(), 'f', 4, 3);
    const state = first.state({ keepRecentTurns: 1, keepRecentTokens: 0 });
    const run = await compactAll(compactor, state);
    assert.ok(run.records.some((r) => r.layer === 'summarise'));
    const namedAfterFirst = new Set(remindersName(run.state.messages).map(fileKey));
    for (let n = 1; n <= 9; n++)
      assert.ok(namedAfterFirst.has(`src/f${n}.ts`), `f${n} is named after the first compaction`);
    assert.deepEqual(checkInvariants(run.state, { allowPendingToolUse: false }), []);

    // More work, then a compaction whose region holds the first reminder.
    const before = first.messages.length;
    reading(first, 'g', 3, 2);
    const grown: ConversationState = {
      ...run.state,
      messages: [...run.state.messages, ...first.messages.slice(before)],
    };
    const second = await compactAll(compactor, grown);
    assert.ok(second.records.some((r) => r.layer === 'summarise'));
    const namedAfterSecond = new Set(remindersName(second.state.messages).map(fileKey));
    for (let n = 1; n <= 12; n++)
      assert.ok(namedAfterSecond.has(`src/f${n}.ts`), `f${n} is still named after the second compaction`);
    for (let n = 1; n <= 4; n++) assert.ok(namedAfterSecond.has(`src/g${n}.ts`), `g${n} is named`);
    assert.deepEqual(checkInvariants(second.state, { allowPendingToolUse: false }), []);

    const record = second.records.at(-1);
    assert.ok(record);
    const restored = restoreRecord(second.state, record);
    assert.ok(restored.ok);
    assert.deepEqual(restored.state.messages, grown.messages, 'Restore removes the reminder with the summary');
  });

  it('Compact Now names the files the run then names; the record lists them for the Compactions view', async () => {
    const compactor = compactorFor({ ...DEFAULT_COMPACTION_SETTINGS });
    const convo = reading(new Convo(), 'f', 2, 3);
    convo.call('edit_file', { path: 'src/f1.ts', old_string: 'a', new_string: 'b' }, 'edited').say('edited f1');
    reading(convo, 'h', 2, 3);
    const state = convo.state({ keepRecentTurns: 1, keepRecentTokens: 0 });
    const preview = await compactor.preview(state);
    assert.ok(preview.named.length > 0, 'more files than re-attach takes were read');
    assert.match(
      previewSentence(preview),
      new RegExp(
        ` and names ${preview.named.length} other files read or edited earlier by path: ~\\d+ tokens as the files are now\\. `,
      ),
    );
    const run = await compactAll(compactor, state);
    const record = run.records.find((r) => r.layer === 'summarise');
    assert.ok(record);
    assert.deepEqual(
      indexedFilesOf(record).map((f) => f.path),
      preview.named,
    );
    assert.deepEqual(
      (record.reattached ?? []).map((f) => f.path),
      preview.reattached.map((f) => f.path),
    );
    assert.equal(
      describeIndexed(indexedFilesOf(record)),
      'src/h1.ts, src/f1.ts (edited), src/f6.ts, src/f5.ts, src/f4.ts, src/f3.ts, src/f2.ts',
      'newest first; h4–h6 stay verbatim, h2 and h3 are re-attached',
    );
    assert.equal(describeIndexed([{ path: 'a\nb.ts', edited: true }]), 'a b.ts (edited)');
  });

  it('when the index would stop a small compaction shrinking the context, the reminder goes without it', async () => {
    const c = new Convo().user('go');
    for (let n = 1; n <= 8; n++) c.read(`src/f${n}.ts`, `content ${n}`);
    c.say('done').user('next').say('ok');
    const state = c.state();
    const cut = c.messages.findIndex((m) => m.turn === 2);
    const originals = c.messages.slice(0, cut);
    const replacement = [
      c.b.message('user', [c.b.text('[Turn 1 was removed.]', 'compactor')], 1),
      c.b.message('assistant', [c.b.text('Understood.', 'assistant')], 1),
    ];
    const sum = (ms: readonly Message[]) => ms.reduce((n, m) => n + tokensOf(m), 0);
    const runFor = (tokensBefore: number) => {
      const record: CompactionRecord = {
        id: 'c1',
        at: 0,
        trigger: 'manual',
        layer: 'oldest-removal',
        strategy: 'oldest-removal',
        regions: [],
        originals,
        replacement,
        tokensBefore,
        tokensAfter: sum(replacement),
        costUsd: 0,
        durationMs: 0,
        fallbacks: [],
      };
      const applied = applyRecord(state, record);
      assert.ok(applied.ok);
      return { state: applied.state, records: [record] };
    };
    const deps = {
      readFresh: async () => ({ ok: false as const, reason: 'it no longer exists' }),
      tokensOf,
      measure: (s: ConversationState) => sum(s.messages),
      settings: DEFAULT_COMPACTION_SETTINGS,
      clock: fakeClock(),
      ids: counterIds('x'),
    };
    const roomy = await reattach(state, runFor(1_000_000), deps);
    const withIndex = roomy.records[0]?.tokensAfter ?? 0;
    assert.deepEqual(
      indexedFilesOf(roomy.records[0] as CompactionRecord).map((f) => f.path),
      ['src/f3.ts', 'src/f2.ts', 'src/f1.ts'],
    );

    const tight = await reattach(state, runFor(withIndex - 1), deps);
    const record = tight.records[0] as CompactionRecord;
    assert.ok(record.tokensAfter < withIndex - 1, 'the record still shrinks the context');
    assert.deepEqual(indexedFilesOf(record), [], 'without the index');
    assert.deepEqual(
      (record.reattached ?? []).map((f) => [f.path, f.attached]),
      [8, 7, 6, 5, 4].map((n) => [`src/f${n}.ts`, 'reference']),
      'but with the re-attach references',
    );
  });
});
