import { strict as assert } from 'node:assert';
import { describeStandIns, type StandIns } from '../../bench/blockStandIn';
import {
  describeIgnored,
  NO_REQUEST,
  parseTranscript,
  TRUNCATED_LAST_LINE,
  type IgnoredRecords,
} from '../../bench/transcript';

const line = (o: unknown): string => JSON.stringify(o);

describe('bench transcript parser', () => {
  it('parses messages, usage and compaction in order, with meta on every block', () => {
    const text = [
      line({ kind: 'message', message: { role: 'user', content: 'hello' } }),
      line({
        kind: 'usage',
        model: 'claude-sonnet-4-5',
        usage: { input_tokens: 3, cache_read_input_tokens: 0, cache_creation_input_tokens: 100, output_tokens: 5 },
      }),
      line({
        kind: 'message',
        message: {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm' },
            { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } },
          ],
        },
      }),
      line({
        kind: 'message',
        message: { role: 'assistant', content: [{ type: 'text', text: 'adjacent assistant message' }] },
      }),
      '',
      line({
        kind: 'message',
        message: {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'x' }], is_error: true },
          ],
        },
      }),
      line({ kind: 'usage', model: 'gpt-x', usage: null }),
      line({ kind: 'compaction', summary: 'what happened', tokensBefore: 1234 }),
    ].join('\n');
    const ev = parseTranscript(text);
    assert.deepEqual(
      ev.map((e) => e.kind),
      ['message', 'usage', 'message', 'message', 'message', 'usage', 'compaction'],
    );
    assert.deepEqual(
      ev.map((e) => e.line),
      [1, 2, 3, 4, 6, 7, 8],
    );
    const msgs = ev.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
    const ids = new Set(msgs.flatMap((m) => m.blocks.map((b) => b.meta.id)));
    assert.equal(ids.size, 5, 'unique block ids');
    assert.equal(msgs[0]?.blocks[0]?.type, 'text');
    const thinking = msgs[1]?.blocks[0];
    assert.ok(thinking?.type === 'thinking' && thinking.signature === undefined);
    const result = msgs[3]?.blocks[0];
    assert.ok(
      result?.type === 'tool_result' &&
        result.isError === true &&
        result.meta.toolUseId === 'toolu_1' &&
        result.meta.tier === 3,
    );
    const usage = ev[5];
    assert.ok(usage?.kind === 'usage' && usage.usage === null);
    const compaction = ev[6];
    assert.ok(compaction?.kind === 'compaction' && compaction.message.blocks[0]?.type === 'summary');
    assert.deepEqual(
      msgs.map((m) => m.turn),
      [1, 1, 1, 1],
    );
  });

  it('names the line of a malformed record', () => {
    const ok = line({ kind: 'message', message: { role: 'user', content: 'hi' } });
    assert.throws(() => parseTranscript(`${ok}\n{not json\n${ok}`, 'f.jsonl'), /^Error: f\.jsonl:2: not valid JSON/);
    assert.throws(
      () => parseTranscript(`${ok}\n${ok}\n${line({ kind: 'usage', usage: { input_tokens: -1 } })}`, 'f.jsonl'),
      /f\.jsonl:3: usage: "input_tokens"/,
    );
    assert.throws(
      () => parseTranscript(line({ kind: 'message', message: { role: 'system', content: 'x' } }), 'f.jsonl'),
      /f\.jsonl:1: "role"/,
    );
    assert.throws(
      () =>
        parseTranscript(
          line({ kind: 'message', message: { role: 'user', content: [{ text: 'no type' }] } }),
          'f.jsonl',
        ),
      /f\.jsonl:1: block 1: a block must have a "type"/,
    );
    assert.throws(() => parseTranscript(line({ nokind: 1 }), 'f.jsonl'), /f\.jsonl:1: no "kind"/);
    assert.throws(
      () => parseTranscript(['{"kind": "mess', line({ kind: 'weird' })].join('\n'), 'f.jsonl'),
      /f\.jsonl:1: not valid JSON/,
      'invalid JSON before the last line is an error',
    );
  });

  it("reads a usage record of no request (Claude Code's <synthetic> replies, no prompt tokens) as null", () => {
    const ignored: IgnoredRecords = new Map();
    const zero = { input_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 0 };
    const ev = parseTranscript(
      [
        line({ kind: 'usage', model: '<synthetic>', usage: { ...zero, output_tokens: 3 } }),
        line({ kind: 'usage', model: 'claude-opus-4-6', usage: zero }),
        line({ kind: 'usage', model: 'claude-opus-4-6', usage: { ...zero, cache_read_input_tokens: 10 } }),
      ].join('\n'),
      'f.jsonl',
      undefined,
      ignored,
    );
    assert.deepEqual(
      ev.map((e) => e.kind === 'usage' && e.usage !== null),
      [false, false, true],
    );
    assert.deepEqual([...ignored], [[NO_REQUEST, 2]]);
  });

  it('reads past records of a kind it does not know and a last line cut off mid-write, counting them', () => {
    const ignored: IgnoredRecords = new Map();
    const text = [
      line({ kind: 'session', version: 3 }),
      line({ kind: 'message', message: { role: 'user', content: 'hi' } }),
      line({ kind: 'weird' }),
      line({ kind: 'weird' }),
      '{"kind": "usage", "model": "claude-son',
      '',
    ].join('\n');
    const ev = parseTranscript(text, 'f.jsonl', undefined, ignored);
    assert.deepEqual(
      ev.map((e) => e.kind),
      ['message'],
    );
    assert.deepEqual(
      [...ignored],
      [
        ['record of unknown kind "session"', 1],
        ['record of unknown kind "weird"', 2],
        [TRUNCATED_LAST_LINE, 1],
      ],
    );
    assert.equal(
      describeIgnored(ignored),
      'record of unknown kind "session" ×1, record of unknown kind "weird" ×2, last line cut off (not valid JSON) ×1',
    );
  });

  it('stands in for valid blocks the core cannot carry, counting them, and keeps redacted thinking', () => {
    const pdf = 'JVBERi0'.repeat(1_000);
    const standIns: StandIns = new Map();
    const ev = parseTranscript(
      [
        line({
          kind: 'message',
          message: {
            role: 'user',
            content: [
              { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf } },
              { type: 'text', text: 'summarise the pdf' },
            ],
          },
        }),
        line({
          kind: 'message',
          message: {
            role: 'assistant',
            content: [
              { type: 'redacted_thinking', data: 'opaque' },
              { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
              { type: 'tool_use', id: 'tu1', name: 'read', input: { path: 'a.png' } },
            ],
          },
        }),
        line({
          kind: 'message',
          message: {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'tu1',
                content: [
                  { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
                  { type: 'search_result', source: 's', title: 't', content: [{ type: 'text', text: 'hit' }] },
                ],
              },
            ],
          },
        }),
      ].join('\n'),
      'f.jsonl',
      standIns,
    );
    assert.equal(
      describeStandIns(standIns),
      'document ×1, server_tool_use ×1, image (url source) ×1, search_result ×1',
    );
    const msgs = ev.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
    const doc = msgs[0]?.blocks[0];
    assert.ok(
      doc?.type === 'text' && doc.text.startsWith('[document block of the original session, replayed as text]'),
    );
    assert.ok(doc.text.length < 2_400 && doc.text.includes('more characters'), 'the base64 data is cut');
    const thinking = msgs[1]?.blocks[0];
    assert.ok(thinking?.type === 'thinking' && thinking.redactedData === 'opaque' && thinking.thinking === '');
    const result = msgs[2]?.blocks[0];
    assert.ok(result?.type === 'tool_result' && Array.isArray(result.content));
    assert.deepEqual(
      result.content.map((p) => p.type),
      ['text', 'text'],
    );
  });

  it('reads the optional "at" of a usage record as ms since the epoch, and names a bad one', () => {
    const u = { input_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 1 };
    const ev = parseTranscript(
      [
        line({ kind: 'usage', model: 'claude-opus-4-6', at: '2026-02-10T14:03:07.250Z', usage: u }),
        line({ kind: 'usage', model: 'claude-opus-4-6', usage: u }),
        line({ kind: 'usage', model: 'gpt-x', at: '2026-02-10T14:05:00+01:00', usage: null }),
      ].join('\n'),
    );
    assert.ok(ev[0]?.kind === 'usage' && ev[0].at === Date.UTC(2026, 1, 10, 14, 3, 7, 250));
    assert.ok(ev[1]?.kind === 'usage' && ev[1].at === undefined && !('at' in ev[1]), 'absent in older files');
    assert.ok(ev[2]?.kind === 'usage' && ev[2].at === Date.UTC(2026, 1, 10, 13, 5, 0));
    for (const bad of ['yesterday', '2026-02-10', 1760000000, '2026-13-45T99:00:00Z']) {
      assert.throws(
        () => parseTranscript(line({ kind: 'usage', model: 'm', at: bad, usage: u }), 'f.jsonl'),
        /^Error: f\.jsonl:1: "at" must be an ISO-8601 time/,
        String(bad),
      );
    }
  });
});
