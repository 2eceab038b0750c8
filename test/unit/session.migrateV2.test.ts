import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, ServerToolBlock } from '../../src/core/conversation/conversationModel';
import { SESSION_VERSION } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { loadSession } from '../../src/host/sessions/sessionLoader';
import { SessionStore } from '../../src/host/sessions/sessionStore';
import { Build } from './support/builders';
import { text } from './support/loaderHarness';
import { entriesOf, sampleHeader } from './support/sessionSamples';

const ID = '2026-12-01T09-00-00-vtwo02';
const meta = (id: string, source: string, extra = '') =>
  `{"id":"${id}","tier":${source === 'tool' ? 3 : source === 'user' ? 1 : 2},"source":"${source}","createdAt":1${extra},"pinned":false,"compactable":${source !== 'user'}}`;
const msg = (id: string, role: string, turn: number, blocks: string) =>
  `{"id":"${id}","role":"${role}","turn":${turn},"blocks":[${blocks}]}`;
const M1 = msg('m1', 'user', 1, `{"type":"text","text":"Read src/a.ts","meta":${meta('b1', 'user')}}`);
const M2 = msg(
  'm2',
  'assistant',
  1,
  `{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"src/a.ts"},"meta":${meta('b2', 'assistant', ',"toolUseId":"toolu_1"')}}`,
);
const M3 = msg(
  'm3',
  'user',
  1,
  `{"type":"tool_result","toolUseId":"toolu_1","content":"export const a = 1;\\n","meta":${meta('b3', 'tool', ',"toolUseId":"toolu_1"')}}`,
);
const M4 = msg('m4', 'assistant', 1, `{"type":"text","text":"It exports a = 1.","meta":${meta('b4', 'assistant')}}`);

/**
 * A session file as version 2 of the extension wrote it, byte for byte: messages with a tool
 * call, usage, a typed compaction of turn 1, a pin, then turn 2.
 */
const V2_LINES = [
  `{"type":"header","format":"context-pipeline-session","version":2,"sessionId":"${ID}","createdAt":1700000000000,"model":"claude-sonnet-4-5","workspace":"demo"}`,
  ...[M1, M2, M3, M4].map((m, i) => `{"type":"message","at":${1700000000100 + i},"message":${m}}`),
  `{"type":"usage","at":1700000000200,"requestIndex":1,"turn":1,"model":"claude-sonnet-4-5","usage":{"input_tokens":2400,"output_tokens":12,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"estimatedInputTokens":2390,"costUsd":0.0074,"counted":2398}`,
  `{"type":"message","at":1700000000300,"message":${msg('m5', 'user', 2, `{"type":"text","text":"And in French?","meta":${meta('b5', 'user')}}`)}}`,
  `{"type":"message","at":1700000000400,"message":${msg('m6', 'assistant', 2, `{"type":"text","text":"Il exporte a = 1.","meta":${meta('b6', 'assistant')}}`)}}`,
  `{"type":"compaction","at":1700000000500,"id":"cmp_1","trigger":"manual","replacedIds":["m1","m2","m3","m4"],"originals":[${[M1, M2, M3, M4].join(',')}],` +
    `"replacement":[${msg('m_sum', 'user', 1, `{"type":"summary","text":"a.ts exports a = 1.","compactionId":"cmp_1","turnRange":[1,1],"meta":{"id":"b_sum","tier":0,"source":"compactor","createdAt":5,"pinned":false,"compactable":false}}`)},` +
    `${msg('m_ack', 'assistant', 1, `{"type":"text","text":"Understood.","meta":${meta('b_ack', 'assistant')}}`)}],` +
    `"tokensBefore":900,"tokensAfter":60,"layer":"summarise","strategy":"hybrid","regions":[{"firstTurn":1,"lastTurn":1,"messageIds":["m1","m2","m3","m4"],"tokens":900}],"costUsd":0.002,"durationMs":1500,"fallbacks":[],"summary":"a.ts exports a = 1.","model":"claude-haiku-4-5"}`,
  `{"type":"pin","at":1700000000600,"blockId":"b5"}`,
];
const V2_FILE = `${V2_LINES.join('\n')}\n`;

describe('session format version 3', () => {
  let root: string;
  let file: string;
  beforeEach(async () => {
    root = await fsp.mkdtemp(join(tmpdir(), 'cp-v3-'));
    file = join(root, `${ID}.jsonl`);
  });
  afterEach(async () => {
    await fsp.rm(root, { recursive: true, force: true });
  });

  it('opens a version 2 file, keeps every message, saves it again as version 12 and backs up the original byte for byte', async () => {
    assert.equal(SESSION_VERSION, 12);
    await fsp.writeFile(file, V2_FILE);
    const r = await loadSession(file, { now: () => 1_800_000_000_000 });
    assert.ok(r.ok, r.ok ? '' : r.error);
    assert.deepEqual(r.report?.droppedLines, []);
    assert.deepEqual(r.report?.fixes, [
      'The session was saved in format version 2 by an earlier version of the extension; it was saved again in version 12.',
    ]);
    assert.deepEqual(
      r.session.messages.map((m) => m.id),
      ['m_sum', 'm_ack', 'm5', 'm6'],
    );
    const [c] = r.session.compactions;
    assert.deepEqual(
      c?.entry.originals.map((m) => m.id),
      ['m1', 'm2', 'm3', 'm4'],
      'the compacted messages are kept',
    );
    assert.deepEqual([c?.entry.layer, c?.entry.strategy, c?.entry.model], ['summarise', 'hybrid', 'claude-haiku-4-5']);
    assert.equal(r.session.messages[2]?.blocks[0]?.meta.pinned, true, 'the pin applies');
    assert.deepEqual(
      r.session.usage.map((u) => u.counted),
      [2398],
    );

    assert.ok(r.report?.backupPath);
    assert.equal(await fsp.readFile(r.report.backupPath, 'utf8'), V2_FILE);
    const lines = (await fsp.readFile(file, 'utf8')).trim().split('\n');
    assert.match(lines[0] ?? '', /"version":12/);
    for (const l of lines) assert.ok(decodeLine(l).ok, `reads as version 12: ${l.slice(0, 60)}`);
    const again = await loadSession(file, { now: () => 1_800_000_000_001 });
    assert.ok(again.ok);
    assert.equal(again.report, undefined, 'nothing left to change');
    assert.deepEqual(again.session.messages, r.session.messages);
    assert.deepEqual(again.session.compactions, r.session.compactions);
  });

  it('lists a version 2 file as a healthy session', async () => {
    await fsp.writeFile(file, V2_FILE);
    const store = new SessionStore(root, { now: () => 0, random: () => 0.5 });
    const [s] = await store.list();
    assert.deepEqual([s?.id, s?.damaged, s?.model], [ID, false, 'claude-sonnet-4-5']);
  });

  it('round-trips a server_tool block and a tool_use with meta.effect at version 3, untouched', async () => {
    const b = new Build('v3');
    const at = (blockId: string, toolUseId: string) => ({
      id: blockId,
      tier: 2 as const,
      source: 'assistant' as const,
      createdAt: 0,
      toolUseId,
      pinned: false,
      compactable: true,
    });
    const search: ServerToolBlock = {
      type: 'server_tool',
      raw: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'tool_search_tool_regex', input: { pattern: 'weather' } },
      meta: at('blk_s1', 'srvtoolu_1'),
    };
    const found: ServerToolBlock = {
      type: 'server_tool',
      raw: {
        type: 'tool_search_tool_result',
        tool_use_id: 'srvtoolu_1',
        content: {
          type: 'tool_search_tool_search_result',
          tool_references: [{ type: 'tool_reference', tool_name: 'get_weather' }],
        },
      },
      meta: at('blk_s2', 'srvtoolu_1'),
    };
    const call = b.toolUse('get_weather', { city: 'Paris' });
    const withEffect = { ...call, meta: { ...call.meta, effect: 'external' as const } };
    const messages: Message[] = [
      b.message('user', [b.text('Weather in Paris?')], 1),
      b.message('assistant', [search, found, withEffect], 1),
      b.message('user', [b.toolResult(call.id, 'sunny, 21 °C')], 1),
      b.message('assistant', [b.text('Sunny, 21 °C.', 'assistant')], 1),
    ];
    const content = text(entriesOf(messages, sampleHeader(ID)));
    assert.match(content.split('\n')[0] ?? '', /"version":12/);
    await fsp.writeFile(file, content);
    const r = await loadSession(file, { now: () => 1_800_000_000_000 });
    assert.ok(r.ok, r.ok ? '' : r.error);
    assert.equal(r.report, undefined, 'nothing repaired, nothing migrated');
    assert.equal(await fsp.readFile(file, 'utf8'), content, 'the file is not rewritten');
    assert.deepEqual(r.session.messages, messages);
    const blocks = r.session.messages[1]?.blocks ?? [];
    assert.deepEqual(
      blocks.map((x) => [x.type, x.meta.effect]),
      [
        ['server_tool', undefined],
        ['server_tool', undefined],
        ['tool_use', 'external'],
      ],
    );
  });
});
