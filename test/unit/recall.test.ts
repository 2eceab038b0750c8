import { strict as assert } from 'node:assert';
import type { CompactionRecord } from '../../src/core/compaction/types';
import type { Message } from '../../src/core/conversation/conversationModel';
import { buildCorpus, type SpilledOutput } from '../../src/core/recall/corpus';
import { recallDefinition, runRecall, type RecallContext } from '../../src/core/recall/recallTool';
import { withSessionTools } from '../../src/core/tools/toolRegistry';
import { findHits } from '../../src/core/recall/search';
import { Build } from './support/builders';
import { summaryRecord } from './support/handoffFixtures';
import { Convo, lines } from './support/compactionBuilders';

/** A summarise-like record of `originals` (their first and last turns), with a summary block standing in. */
export function recordOf(id: string, originals: readonly Message[], summary?: string): CompactionRecord {
  return { ...summaryRecord(id, originals, summary), trigger: 'manual' };
}

/** Turns 1–2 in compaction cmp_a (a read, a failing test run), turn 3 in cmp_b (a long read). */
export function history() {
  const c = new Convo();
  c.user('Fix the failing test of the config loader')
    .read('src/config.ts', 'export function parseConfig(text: string) {\n  return JSON.parse(text);\n}')
    .call(
      'run_command',
      { command: 'npm test' },
      "FAIL test/config.test.ts\nTypeError: Cannot read properties of undefined (reading 'port')\n    at parseConfig (src/config.ts:2:10)",
    )
    .say('parseConfigLegacy is not involved; the port is missing.');
  c.user('Next, the server')
    .read('src/server.ts', lines(3000, 30, 'srv'))
    .say('The server listens on 8080.');
  c.user('Summarise what we learned').say('Done.');
  const turn = (n: number) => c.messages.filter((m) => m.turn === n);
  const a = recordOf('cmp_a', [...turn(1), ...turn(2)].slice(0, 7));
  const b = recordOf('cmp_b', turn(2).slice(1));
  const tool = (name: string) =>
    c.messages.flatMap((m) => m.blocks.flatMap((x) => (x.type === 'tool_use' && x.name === name ? [x] : [])));
  return {
    c,
    a,
    b,
    compactions: [{ record: a }, { record: b }],
    readCall: tool('read_file')[0]!,
    testCall: tool('run_command')[0]!,
    serverCall: tool('read_file')[1]!,
  };
}

const ctx = (over: Partial<RecallContext> = {}): RecallContext => ({
  compactions: history().compactions,
  spills: [],
  ...over,
});

describe('recall: search', () => {
  it('finds an identifier case-insensitively and ranks exact identifier matches before partial ones', () => {
    const h = history();
    const hits = findHits(buildCorpus(h.compactions), 'parseConfig');
    assert.deepEqual(
      hits.map((x) => [x.item.kind, x.score]),
      [
        ['tool_result', 4],
        ['tool_result', 4],
        ['text', 2],
      ],
      'the answer that only mentions parseConfigLegacy comes last, although it is not the latest',
    );
    const upper = findHits(buildCorpus(h.compactions), 'PARSECONFIG');
    assert.deepEqual(
      upper.map((x) => x.score),
      [3, 3, 2],
      'a word match of another case still beats a part of a longer word',
    );
  });

  it('shows each hit with its kind, turn, compaction, the id to read it with and a snippet with context', () => {
    const h = history();
    const r = runRecall({ query: 'TypeError' }, ctx());
    assert.equal(r.isError, false);
    assert.match(r.text, /^1 match for "TypeError":/);
    assert.ok(
      r.text.includes(`[1] tool result of run_command · turn 1 · compaction cmp_a · id=${h.testCall.id}`),
      r.text,
    );
    assert.ok(
      r.text.includes(
        "    FAIL test/config.test.ts\n  > TypeError: Cannot read properties of undefined (reading 'port')\n        at parseConfig (src/config.ts:2:10)",
      ),
      r.text,
    );
    assert.match(r.text, /Read one in full with recall id=<id>/);
    assert.deepEqual(r.compactionIds, ['cmp_a']);
  });

  it('returns at most 20 hits, says how many matched, and cuts long lines to a window around the match', () => {
    const c = new Convo();
    for (let t = 1; t <= 30; t++) c.user(`${'x'.repeat(500)} needle ${t} ${'y'.repeat(500)}`).say('ok');
    const r = runRecall({ query: 'needle' }, { compactions: [{ record: recordOf('cmp_1', c.messages) }], spills: [] });
    assert.match(r.text, /^30 matches for "needle" \(showing the best 20;/);
    assert.equal((r.text.match(/^\[\d+\] /gm) ?? []).length, 20);
    const hitLine = r.text.split('\n').find((l) => l.startsWith('  > ')) ?? '';
    assert.ok(hitLine.length < 220 && hitLine.includes('needle 1 ') && hitLine.includes('…'), hitLine);
  });

  it('matches every word of a query when the phrase does not occur, and says so when nothing matches', () => {
    const r = runRecall({ query: 'port undefined' }, ctx());
    assert.match(r.text, /^1 match for "port undefined"/);
    const none = runRecall({ query: 'kubernetes' }, ctx());
    assert.equal(none.isError, false);
    assert.equal(
      none.text,
      'No match for "kubernetes" in 2 compactions (10 original messages, 2 summaries) and 0 saved outputs. Try a shorter or broader term: one identifier, part of a file name or of an error message.',
    );
    assert.deepEqual(none.compactionIds, []);
  });

  it('searches summaries, limits to one compaction on request, and never finds its own earlier recalls', () => {
    const b = new Build('r');
    const use = b.toolUse('recall', { query: 'secretWord' });
    const own = recordOf(
      'cmp_r',
      [
        b.message('user', [b.text('go on')], 9),
        b.message('assistant', [use], 9),
        b.message('user', [b.toolResult(use.id, 'found secretWord')], 9),
      ],
      'Summary of turn 9: recalled things.',
    );
    assert.match(runRecall({ query: 'secretWord' }, { compactions: [{ record: own }], spills: [] }).text, /^No match/);
    const s = runRecall({ query: 'work was done', compaction: 'cmp_b' }, ctx());
    assert.match(s.text, /^1 match .*\n\n\[1\] summary · turn 2 · compaction cmp_b · id=/);
  });

  it('searches saved outputs given through the port and points at read_file for them', async () => {
    const spills: SpilledOutput[] = [
      { path: '/s/x.files/tool-toolu_9.txt', text: 'line 1\nDeprecationWarning: Buffer() is deprecated\nline 3' },
    ];
    const runner = withSessionTools(
      { run: async () => ({ content: 'workspace', isError: false }) },
      [recallDefinition({ compactions: () => history().compactions, spills: { read: async () => spills } })],
      () => 0,
    );
    const out = await runner.run(
      { id: 'toolu_r1', name: 'recall', input: { query: 'deprecationwarning' } },
      new AbortController().signal,
    );
    assert.equal(out.isError, false);
    assert.ok(String(out.content).includes('[1] saved output · id=/s/x.files/tool-toolu_9.txt'), String(out.content));
    assert.ok(String(out.content).includes('read_file path=<id>'));
    const other = await runner.run(
      { id: 'toolu_r2', name: 'read_file', input: { path: 'a' } },
      new AbortController().signal,
    );
    assert.deepEqual(other, { content: 'workspace', isError: false }, 'other tools go to the workspace runner');
  });
});

describe('recall: read', () => {
  it('reads a tool call with its result by the tool_use id, as numbered lines', () => {
    const h = history();
    const r = runRecall({ id: h.testCall.id }, ctx());
    assert.equal(r.isError, false);
    assert.ok(r.text.startsWith(`     1\t=== assistant · turn 1 · message `), r.text);
    assert.ok(r.text.includes(`--- tool call run_command (${h.testCall.id}) ---`));
    assert.ok(r.text.includes(`--- tool result of run_command (${h.testCall.id}) ---`));
    assert.ok(r.text.includes("\tTypeError: Cannot read properties of undefined (reading 'port')"));
    assert.deepEqual(r.compactionIds, ['cmp_a']);
  });

  it('reads a message, a block, a whole compaction and a saved output by id', () => {
    const h = history();
    const userMsg = h.a.originals[0]!;
    assert.match(runRecall({ id: userMsg.id }, ctx()).text, /Fix the failing test of the config loader/);
    const summary = h.b.replacement[0]!.blocks[0]!;
    const block = runRecall({ id: summary.meta.id }, ctx());
    assert.match(block.text, /--- summary of turns 2–2 \(compaction cmp_b/);
    assert.deepEqual(block.compactionIds, ['cmp_b']);
    const whole = runRecall({ id: 'cmp_a' }, ctx());
    assert.match(whole.text, /src\/config\.ts/);
    assert.match(whole.text, /Next, the server/);
    const spills = [{ path: '/s/x.files/paste-1.txt', text: 'pasted log' }];
    const saved = runRecall({ id: 'paste-1.txt' }, ctx({ spills }));
    assert.equal(saved.text, '     1\t=== saved output /s/x.files/paste-1.txt ===\n     2\tpasted log');
    assert.deepEqual(saved.compactionIds, []);
  });

  it('mentions the saved full output of a call whose result was spilled', () => {
    const h = history();
    const spills = [{ path: `/s/x.files/tool-${h.serverCall.id}.txt`, text: 'all of it' }];
    const r = runRecall({ id: h.serverCall.id, offset: 3000 }, ctx({ spills }));
    assert.match(
      r.text,
      new RegExp(`The full output of this call was saved to /s/x\\.files/tool-${h.serverCall.id}\\.txt`),
    );
  });

  it('reads a compacted turn, of one compaction on request, and names the compacted turns otherwise', () => {
    const t1 = runRecall({ turn: 1 }, ctx());
    assert.match(t1.text, /Fix the failing test/);
    assert.ok(!t1.text.includes('Next, the server'));
    const t2 = runRecall({ turn: 2, compaction: 'cmp_b', limit: 5 }, ctx());
    assert.deepEqual(t2.compactionIds, ['cmp_b']);
    assert.match(t2.text, /Continue with recall turn=2 compaction=cmp_b offset=6\.\]$/);
    const missing = runRecall({ turn: 7 }, ctx());
    assert.equal(missing.isError, true);
    assert.equal(
      missing.text,
      'recall: turn 7 is not among the compacted turns (compacted turns: 1–2). A turn that was never compacted is still in the conversation.',
    );
  });

  it('pages like read_file: a default of 2,000 lines, a character cap, long lines cut, and where to continue', () => {
    const h = history();
    const first = runRecall({ id: h.serverCall.id }, ctx());
    assert.match(
      first.text,
      /\[Showing lines 1–\d+ of 3,008\. The result reached its 24,000-character limit\. Continue with recall id=toolu\S+ offset=(\d+)\.\]$/,
    );
    assert.ok(first.text.length <= 24_000);
    const next = Number(/offset=(\d+)\.\]$/.exec(first.text)?.[1]);
    const second = runRecall({ id: h.serverCall.id, offset: next, limit: 3 }, ctx());
    assert.ok(second.text.startsWith(`${String(next).padStart(6)}\t`), second.text.slice(0, 40));
    assert.match(
      second.text,
      new RegExp(
        `\\[Showing lines ${next.toLocaleString('en-US')}–${(next + 2).toLocaleString('en-US')} of 3,008\\. Continue with recall id=\\S+ offset=${next + 3}\\.\\]$`,
      ),
    );
    const big = runRecall({ id: h.serverCall.id }, ctx({ maxChars: 1_000_000 }));
    assert.match(big.text, /\[Showing lines 1–2,000 of 3,008\. Continue with recall id=\S+ offset=2001\.\]$/);
    const end = runRecall({ id: h.serverCall.id, offset: 3007 }, ctx());
    assert.match(end.text, /\[Showing lines 3,007–3,008 of 3,008 \(the end\)\.\]$/);
    const past = runRecall({ id: h.serverCall.id, offset: 4000 }, ctx());
    assert.equal(past.isError, true);
    assert.match(past.text, /offset 4,000 is past the end of id=\S+, which has 3,008 lines/);
    const c = new Convo().user(`start ${'w'.repeat(5000)}`).say('ok');
    const cut = runRecall(
      { turn: 1 },
      { compactions: [{ record: recordOf('cmp_l', c.messages) }], spills: [], limits: { readMaxLineChars: 100 } },
    );
    assert.match(cut.text, /… \[line cut: 4,906 more characters\]/);
    assert.match(cut.text, /\[1 line longer than 100 characters was cut\.\]$/);
  });
});

describe('recall: errors are values that say what to do', () => {
  it('refuses a call without exactly one of query, id and turn, and checks its parameters', () => {
    assert.equal(
      runRecall({}, ctx()).text,
      'recall: give exactly one of `query` (text or an identifier to search for), `id` (from a search hit) or `turn` (a compacted turn).',
    );
    assert.match(runRecall({ query: 'a', id: 'b' }, ctx()).text, /^recall: only give exactly one of/);
    assert.match(runRecall({ pattern: 'a' }, ctx()).text, /^recall: unknown parameter "pattern"/);
    assert.ok(runRecall('nope', ctx()).isError);
  });

  it('says there is nothing to recall before the first compaction, and names unknown ids and compactions', () => {
    const none = runRecall({ query: 'x' }, { compactions: [], spills: [] });
    assert.equal(none.isError, true);
    assert.match(none.text, /^recall: nothing has been compacted in this session yet/);
    const unknown = runRecall({ id: 'msg_nope' }, ctx());
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /nothing compacted or saved has the id "msg_nope".*search first with recall query=/);
    assert.equal(
      runRecall({ query: 'x', compaction: 'cmp_zz' }, ctx()).text,
      'recall: there is no compaction "cmp_zz" in this session. Compactions: cmp_a, cmp_b.',
    );
  });
});
