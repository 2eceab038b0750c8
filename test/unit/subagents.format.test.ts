import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeEntry, SESSION_VERSION } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { replaySession } from '../../src/core/session/replay';
import { requestHistoryOf } from '../../src/core/session/requestHistory';
import { subagentEntryOf } from '../../src/core/session/subagentEntry';
import type { SubagentRecord } from '../../src/core/subagents/subagentRecord';
import { loadSession } from '../../src/host/sessions/sessionLoader';
import { sessionPickItem, withChildrenUnderParents } from '../../src/host/sessions/sessionPick';
import { SessionStore, type SessionSummary } from '../../src/host/sessions/sessionStore';
import { sampleHeader } from './support/sessionSamples';
import { withStorePort } from './support/storePort';

const ID = '2026-11-29T10-00-00-vfive1';

/** A session file as version 5 of the extension wrote it, byte for byte: a turn and a plan line. */
const V5_FILE = `${[
  `{"type":"header","format":"context-pipeline-session","version":5,"sessionId":"${ID}","createdAt":1700000000000,"model":"claude-sonnet-4-6","workspace":"demo"}`,
  `{"type":"message","at":1700000000100,"message":{"id":"m1","role":"user","turn":1,"blocks":[{"type":"text","text":"Plan it","meta":{"id":"b1","tier":1,"source":"user","createdAt":1,"pinned":false,"compactable":false}}]}}`,
  `{"type":"usage","at":1700000000150,"requestIndex":1,"turn":1,"model":"claude-sonnet-4-6","usage":{"input_tokens":100,"output_tokens":10,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"estimatedInputTokens":90,"costUsd":0.00045}`,
  `{"type":"plan","at":1700000000160,"steps":[{"step":"Read","status":"in_progress"}],"toolUseId":"toolu_p"}`,
  `{"type":"message","at":1700000000200,"message":{"id":"m2","role":"assistant","turn":1,"blocks":[{"type":"text","text":"Planned.","meta":{"id":"b2","tier":1,"source":"assistant","createdAt":2,"pinned":false,"compactable":true}}]}}`,
].join('\n')}\n`;

const RECORD: SubagentRecord = {
  toolUseId: 'toolu_t1',
  sessionId: '2026-11-29T10-00-05-child1',
  description: 'Find the store',
  model: 'claude-haiku-4-5',
  state: 'done',
  requests: 3,
  rounds: 3,
  toolCalls: 4,
  lastTool: 'Read src/store.ts',
  compactions: 0,
  usage: { input_tokens: 3000, output_tokens: 300, cache_read_input_tokens: 2000, cache_creation_input_tokens: 500 },
  costUsd: 0.0061,
  at: 1_700_000_000_300,
};

describe('subagents in the session file (version 6)', () => {
  let root: string;
  beforeEach(async () => {
    root = await fsp.mkdtemp(join(tmpdir(), 'cp-sa-'));
  });
  afterEach(async () => {
    await fsp.rm(root, { recursive: true, force: true });
  });

  it('opens a literal version 5 file: saved again as version 12, backed up, plan kept; a subagent line then reads back', async () => {
    assert.equal(SESSION_VERSION, 12);
    const file = join(root, `${ID}.jsonl`);
    await fsp.writeFile(file, V5_FILE);
    const r = await loadSession(file, { now: () => 1_800_000_000_000 });
    assert.ok(r.ok, r.ok ? '' : r.error);
    assert.deepEqual(r.report?.fixes, [
      'The session was saved in format version 5 by an earlier version of the extension; it was saved again in version 12.',
    ]);
    assert.deepEqual(r.report?.droppedLines, []);
    assert.equal(await fsp.readFile(r.report?.backupPath ?? '', 'utf8'), V5_FILE);
    assert.deepEqual(r.session.plan, { steps: [{ step: 'Read', status: 'in_progress' }] });
    assert.deepEqual(r.session.subagents, []);
    await fsp.appendFile(file, `${encodeEntry(subagentEntryOf(RECORD))}\n`);
    const again = await loadSession(file, { now: () => 1_800_000_000_001 });
    assert.ok(again.ok);
    assert.equal(again.report, undefined, 'a subagent line is no damage');
    assert.deepEqual(again.session.subagents, [RECORD]);
  });

  it('a subagent line without a cost is an unknown cost; a malformed one is damage', () => {
    const { costUsd: _c, ...unpriced } = RECORD;
    const line = encodeEntry(subagentEntryOf({ ...unpriced, costUsd: undefined }));
    assert.doesNotMatch(line, /costUsd/);
    const d = decodeLine(line);
    assert.ok(d.ok);
    assert.deepEqual(replaySession([sampleHeader(), d.entry]).subagents, [{ ...unpriced, costUsd: undefined }]);
    assert.equal(decodeLine(`{"type":"subagent","at":1}`).ok, false, 'a malformed line is damage');
  });

  it('the request history lists each subagent with the turn of the request that started it, apart from the requests', () => {
    const usage = (turn: number, requestIndex: number) =>
      ({
        type: 'usage',
        at: requestIndex,
        requestIndex,
        turn,
        model: 'claude-sonnet-4-6',
        usage: { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        estimatedInputTokens: 100,
        costUsd: 0.001,
      }) as const;
    const h = requestHistoryOf([sampleHeader(), usage(1, 1), usage(2, 2), subagentEntryOf(RECORD), usage(2, 3)]);
    assert.equal(h.requests.length, 3, 'a subagent is not a request of the session');
    assert.deepEqual(h.subagents, [{ ...RECORD, turn: 2 }]);
  });

  it('a child session names its parent in its header; the parent reopens with its subagents in its bill', async () => {
    await withStorePort('cp-sa-port-', 1_700_000_000_000, async (port, clock) => {
      const parent = await port.create('claude-sonnet-4-6');
      clock.advance(1000);
      const child = await port.createChild('claude-haiku-4-5', {
        sessionId: parent.id,
        toolUseId: 'toolu_t1',
        title: 'Subagent: Find the store',
      });
      await child.close();
      const transcript = await port.transcript(child.id);
      assert.ok(transcript.ok);
      assert.match(transcript.text, /^# Subagent: Find the store/);
      await parent.sink.usage({
        usage: { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        model: 'claude-sonnet-4-6',
        costUsd: 0.001,
        estimatedTokens: 100,
        at: clock.now(),
      });
      await parent.sink.subagent?.({ ...RECORD, sessionId: child.id });
      await parent.close();
      const reopened = await port.open(parent.id);
      assert.ok(reopened.ok);
      assert.equal(reopened.session.subagents.length, 1);
      assert.ok(Math.abs((reopened.session.costUsd ?? 0) - (0.001 + 0.0061)) < 1e-12, 'the bill counts the subagent');
      assert.equal(reopened.session.requestHistory.subagents[0]?.sessionId, child.id);
      await reopened.session.close();
    });
  });
});

describe('Sessions…: a subagent session is listed under its parent', () => {
  const summary = (id: string, parent?: string): SessionSummary => ({
    id,
    title: id,
    createdAt: 0,
    updatedAt: 0,
    turns: 1,
    hasMessages: true,
    model: 'm',
    sizeBytes: 10,
    damaged: false,
    ...(parent !== undefined ? { parent } : {}),
  });

  it('orders children under their parent, marks them, and lists every session once (orphans and loops too)', () => {
    const list = [
      summary('c1', 'p'),
      summary('q'),
      summary('p'),
      summary('c2', 'p'),
      summary('orphan', 'gone'),
      summary('x', 'y'),
      summary('y', 'x'),
    ];
    assert.deepEqual(
      withChildrenUnderParents(list).map((s) => s.id),
      ['q', 'p', 'c1', 'c2', 'orphan', 'x', 'y'],
    );
    assert.match(sessionPickItem(summary('c1', 'p'), () => 't').label, /^\$\(arrow-small-right\) c1$/);
    assert.equal(sessionPickItem(summary('p'), () => 't').label, 'p');
  });

  it('the summary of a child session file names its parent', async () => {
    const root = await fsp.mkdtemp(join(tmpdir(), 'cp-sa-list-'));
    try {
      const store = new SessionStore(root, { now: () => 1_700_000_000_000, random: Math.random });
      const p = await store.create({ model: 'm', workspace: 'w' });
      const c = await store.create({ model: 'm', workspace: 'w', parent: { sessionId: p.id, toolUseId: 'toolu_1' } });
      await p.writer.close();
      await c.writer.close();
      const listed = await store.list();
      assert.equal(listed.find((s) => s.id === c.id)?.parent, p.id);
      assert.equal(listed.find((s) => s.id === p.id)?.parent, undefined);
    } finally {
      await fsp.rm(root, { recursive: true, force: true });
    }
  });
});
