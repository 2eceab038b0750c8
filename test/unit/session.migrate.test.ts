import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entryToRecord } from '../../src/core/session/compactionEntry';
import { SESSION_VERSION } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { migrateEntry } from '../../src/core/session/migrate';
import { loadSession } from '../../src/host/sessions/sessionLoader';
import { SessionStore } from '../../src/host/sessions/sessionStore';

const ID = '2026-11-20T10-00-00-vone01';
const meta = (id: string, source: string, createdAt: number) =>
  `{"id":"${id}","tier":1,"source":"${source}","createdAt":${createdAt},"pinned":false,"compactable":${source !== 'user'}}`;

/**
 * A session file as version 1 of the extension wrote it, byte for byte: a compaction with
 * `meta`, a recall line, usage with and without the late fields.
 */
const V1_LINES = [
  `{"type":"header","format":"context-pipeline-session","version":1,"sessionId":"${ID}","createdAt":1700000000000,"model":"claude-sonnet-4-5","workspace":"demo"}`,
  `{"type":"message","at":1700000000100,"message":{"id":"m1","role":"user","turn":1,"blocks":[{"type":"text","text":"What does greet do in src/greet.ts?","meta":${meta('b1', 'user', 1)}}]}}`,
  `{"type":"message","at":1700000000200,"message":{"id":"m2","role":"assistant","turn":1,"blocks":[{"type":"text","text":"It greets the user by name.","meta":${meta('b2', 'assistant', 2)}}]}}`,
  `{"type":"usage","at":1700000000250,"requestIndex":1,"turn":1,"model":"claude-sonnet-4-5","usage":{"input_tokens":2400,"output_tokens":12,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"estimatedInputTokens":2390,"costUsd":0.0074}`,
  `{"type":"message","at":1700000000300,"message":{"id":"m3","role":"user","turn":2,"blocks":[{"type":"text","text":"And farewell?","meta":${meta('b3', 'user', 3)}}]}}`,
  `{"type":"message","at":1700000000400,"message":{"id":"m4","role":"assistant","turn":2,"blocks":[{"type":"text","text":"It says goodbye.","meta":${meta('b4', 'assistant', 4)}}]}}`,
  `{"type":"compaction","at":1700000000500,"id":"cmp_1","trigger":"manual","replacedIds":["m1","m2"],"originals":[` +
    `{"id":"m1","role":"user","turn":1,"blocks":[{"type":"text","text":"What does greet do in src/greet.ts?","meta":${meta('b1', 'user', 1)}}]},` +
    `{"id":"m2","role":"assistant","turn":1,"blocks":[{"type":"text","text":"It greets the user by name.","meta":${meta('b2', 'assistant', 2)}}]}],` +
    `"replacement":[{"id":"m_sum","role":"user","turn":1,"blocks":[{"type":"summary","text":"greet greets by name.","compactionId":"cmp_1","turnRange":[1,1],"meta":{"id":"b_sum","tier":0,"source":"compactor","createdAt":5,"pinned":false,"compactable":false}}]},` +
    `{"id":"m_ack","role":"assistant","turn":1,"blocks":[{"type":"text","text":"Understood.","meta":${meta('b_ack', 'assistant', 5)}}]}],` +
    `"tokensBefore":900,"tokensAfter":60,"meta":{"layer":"summarise","strategy":"hybrid","costUsd":0.002,"durationMs":1500,` +
    `"regions":"[{\\"firstTurn\\":1,\\"lastTurn\\":1,\\"messageIds\\":[\\"m1\\",\\"m2\\"],\\"tokens\\":900}]",` +
    `"fallbacks":"[\\"summariser timeout → dropped oldest regions\\"]","summary":"greet greets by name.","instructions":"focus on greet","model":"claude-haiku-4-5",` +
    `"retention":"{\\"kinds\\":{\\"path\\":{\\"found\\":1,\\"lost\\":[]},\\"symbol\\":{\\"found\\":1,\\"lost\\":[]},\\"error\\":{\\"found\\":0,\\"lost\\":[]},\\"url\\":{\\"found\\":0,\\"lost\\":[]},\\"number\\":{\\"found\\":0,\\"lost\\":[]}},\\"lost\\":[],\\"retained\\":1}",` +
    `"reattached":"[{\\"path\\":\\"src/greet.ts\\",\\"tokens\\":40,\\"attached\\":\\"content\\"},{\\"path\\":\\"x\\",\\"attached\\":\\"maybe\\"}]"}}`,
  `{"type":"recall","at":1700000000600,"toolUseId":"toolu_1","compactionIds":["cmp_1"]}`,
  `{"type":"usage","at":1700000000700,"requestIndex":2,"turn":2,"model":"claude-sonnet-4-5","usage":{"input_tokens":300,"output_tokens":10,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"estimatedInputTokens":310,"costUsd":0.001,` +
    `"cacheMiss":{"cause":"message_edited","missedTokens":2400,"source":"ledger","detail":"the compaction replaced m1"},"counted":305,"server":{"appliedEdits":[],"iterations":[]}}`,
];
const V1_FILE = `${V1_LINES.join('\n')}\n`;

describe('session format migration (version 1 → 3)', () => {
  let root: string;
  let file: string;
  beforeEach(async () => {
    root = await fsp.mkdtemp(join(tmpdir(), 'cp-migrate-'));
    file = join(root, `${ID}.jsonl`);
    await fsp.writeFile(file, V1_FILE);
  });
  afterEach(async () => {
    await fsp.rm(root, { recursive: true, force: true });
  });

  it('loads a version 1 file: meta becomes typed fields, the late lines and fields read, nothing is dropped', async () => {
    assert.equal(SESSION_VERSION, 12);
    const r = await loadSession(file, { now: () => 1_800_000_000_000 });
    assert.ok(r.ok, r.ok ? '' : r.error);
    assert.deepEqual(r.report?.droppedLines, []);
    assert.deepEqual(r.report?.fixes, [
      'The session was saved in format version 1 by an earlier version of the extension; it was saved again in version 12.',
    ]);
    assert.deepEqual(
      r.session.messages.map((m) => m.id),
      ['m_sum', 'm_ack', 'm3', 'm4'],
    );
    const [c] = r.session.compactions;
    assert.ok(c);
    assert.equal(c.recalled, 1, 'the recall line counts');
    assert.equal('meta' in c.entry, false);
    const record = entryToRecord(c.entry);
    assert.deepEqual(
      {
        layer: record.layer,
        strategy: record.strategy,
        costUsd: record.costUsd,
        durationMs: record.durationMs,
        regions: record.regions,
        fallbacks: record.fallbacks,
        summary: record.summary,
        instructions: record.instructions,
        model: record.model,
        retained: record.retention?.retained,
        reattached: record.reattached,
      },
      {
        layer: 'summarise',
        strategy: 'hybrid',
        costUsd: 0.002,
        durationMs: 1500,
        regions: [{ firstTurn: 1, lastTurn: 1, messageIds: ['m1', 'm2'], tokens: 900 }],
        fallbacks: ['summariser timeout → dropped oldest regions'],
        summary: 'greet greets by name.',
        instructions: 'focus on greet',
        model: 'claude-haiku-4-5',
        retained: 1,
        reattached: [{ path: 'src/greet.ts', tokens: 40, attached: 'content' }],
      },
    );
    assert.deepEqual(
      r.session.usage.map((u) => [u.counted, u.cacheMiss?.cause, u.server !== undefined]),
      [
        [undefined, undefined, false],
        [305, 'message_edited', true],
      ],
    );
  });

  it('saves the file again in version 12, backs up the original byte for byte, and then reads it as it is', async () => {
    const r = await loadSession(file, { now: () => 1_800_000_000_000 });
    assert.ok(r.ok && r.report?.backupPath);
    assert.equal(await fsp.readFile(r.report.backupPath, 'utf8'), V1_FILE);
    const lines = (await fsp.readFile(file, 'utf8')).trim().split('\n');
    assert.match(lines[0] ?? '', /"version":12/);
    for (const l of lines) assert.ok(decodeLine(l).ok, `reads as version 12: ${l.slice(0, 60)}`);
    assert.ok(!lines.some((l) => l.includes('"meta":{"layer"')), 'no compaction keeps its meta');
    const again = await loadSession(file, { now: () => 1_800_000_000_001 });
    assert.ok(again.ok);
    assert.equal(again.report, undefined, 'nothing left to change');
    assert.deepEqual(again.session.messages, r.session.messages);
    assert.deepEqual(again.session.compactions, r.session.compactions);
  });

  it('lists a version 1 file as a healthy session, not a damaged one', async () => {
    const store = new SessionStore(root, { now: () => 0, random: () => 0.5 });
    const [s] = await store.list();
    assert.deepEqual([s?.id, s?.damaged, s?.turns, s?.model], [ID, false, 2, 'claude-sonnet-4-5']);
  });

  it('a version 1 compaction with an empty or unreadable meta reads with the old defaults; a typed one is left alone', () => {
    const v1 = JSON.parse(V1_LINES[6] ?? '') as Record<string, unknown>;
    const empty = migrateEntry({ ...v1, meta: { regions: '{not json', reattached: 7 } }, 1);
    const d = decodeLine(JSON.stringify({ ...v1, meta: { regions: '{not json', reattached: 7 } }), 1);
    assert.ok(d.ok && d.entry.type === 'compaction', d.ok ? '' : d.reason);
    assert.deepEqual(
      [d.entry.layer, d.entry.strategy, d.entry.regions, d.entry.fallbacks, d.entry.costUsd, d.entry.durationMs],
      ['summarise', 'summarise', [], [], 0, 0],
    );
    assert.equal('reattached' in (empty as object), false);
    const typed = { type: 'compaction', layer: 'snip' };
    assert.equal(
      migrateEntry(typed, 1),
      typed,
      'a compaction without meta (appended by version 2 or 3) is not touched',
    );
    const line = JSON.stringify({ ...v1, meta: {} });
    const asCurrent = decodeLine(line);
    assert.ok(
      asCurrent.ok && asCurrent.entry.type === 'compaction',
      'read as version 3, a meta is read as version 1 wrote it',
    );
    assert.equal('meta' in asCurrent.entry, false);
    assert.equal(
      decodeLine(JSON.stringify({ ...v1, meta: 'x', tokensBefore: 'many' })).ok,
      false,
      'damage stays damage',
    );
  });

  it('a version 1 file whose header was damaged still has its compaction (read as version 1 wrote it), nothing dropped but the header', async () => {
    await fsp.writeFile(file, `${['{"type":"header","format":"context-pipe', ...V1_LINES.slice(1)].join('\n')}\n`);
    const r = await loadSession(file, { now: () => 1_800_000_000_000 });
    assert.ok(r.ok, r.ok ? '' : r.error);
    const [c] = r.session.compactions;
    assert.ok(c, 'the compaction survived');
    assert.deepEqual([c.entry.layer, c.entry.strategy, c.entry.model], ['summarise', 'hybrid', 'claude-haiku-4-5']);
    assert.deepEqual(
      r.session.messages.map((m) => m.id),
      ['m_sum', 'm_ack', 'm3', 'm4'],
    );
  });
});
