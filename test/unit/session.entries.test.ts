import { strict as assert } from 'node:assert';
import { encodeEntry, SESSION_VERSION, type SessionEntry } from '../../src/core/session/entries';
import { decodeLine, newerFormatVersion } from '../../src/core/session/lineCodec';
import type { Message } from '../../src/core/conversation/conversationModel';
import { Build } from './support/builders';
import { sampleConversation, sampleHeader } from './support/sessionSamples';

/** One entry of every type. */
function everyEntryType(): SessionEntry[] {
  const b = new Build('e');
  const [u1, a1, u2] = sampleConversation(b) as [Message, Message, Message];
  const summary = b.message(
    'user',
    [
      {
        type: 'summary',
        text: 'The user asked to read a.ts.',
        compactionId: 'cmp_1',
        turnRange: [1, 1],
        meta: { id: 'blk_sum', tier: 0, source: 'compactor', createdAt: 5, pinned: false, compactable: false },
      },
    ],
    1,
  );
  return [
    { ...sampleHeader(), title: 'Reading a.ts' },
    { type: 'message', at: 1, message: u1 },
    { type: 'message', at: 2, message: a1 },
    { type: 'message', at: 3, message: u2 },
    // Signed thinking with empty text (display `omitted`), bound to its prefix (thinkingBinding.ts).
    {
      type: 'message',
      at: 3,
      message: b.message(
        'assistant',
        [
          {
            type: 'thinking',
            thinking: '',
            signature: 'EqQBCkYIBxgCKkB',
            prefixDigest: '0f1e2d3c4b5a6978',
            meta: { id: 'blk_th', tier: 2, source: 'assistant', createdAt: 3, pinned: false, compactable: true },
          },
        ],
        1,
      ),
    },
    {
      type: 'usage',
      at: 4,
      requestIndex: 1,
      turn: 1,
      model: 'claude-sonnet-4-5',
      usage: { input_tokens: 1200, output_tokens: 80, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0 },
      estimatedInputTokens: 1180,
      costUsd: 0.0042,
    },
    {
      type: 'compaction',
      at: 5,
      id: 'cmp_1',
      trigger: 'manual',
      replacedIds: [u1.id],
      originals: [u1],
      replacement: [summary],
      tokensBefore: 1200,
      tokensAfter: 40,
      layer: 'summarise',
      strategy: 'summarise',
      regions: [{ firstTurn: 1, lastTurn: 1, messageIds: [u1.id], tokens: 1200 }],
      costUsd: 0.001,
      durationMs: 900,
      fallbacks: ['summariser timeout → dropped oldest regions'],
      summary: 'The user asked about a.ts.',
      instructions: 'focus on a.ts',
      model: 'claude-haiku-4-5',
      retention: {
        kinds: {
          path: { found: 1, lost: [] },
          symbol: { found: 0, lost: [] },
          error: { found: 0, lost: [] },
          url: { found: 0, lost: [] },
          number: { found: 2, lost: ['42'] },
        },
        lost: ['42'],
        retained: 0.67,
      },
      reattached: [{ path: 'a.ts', tokens: 30, attached: 'reference', reason: 'too large' }],
    },
    { type: 'restore', at: 6, compactionId: 'cmp_1' },
    { type: 'pin', at: 7, blockId: 'blk_e1' },
    { type: 'unpin', at: 8, blockId: 'blk_e1' },
    { type: 'recall', at: 9, toolUseId: 'toolu_r', compactionIds: ['cmp_1'] },
    { type: 'repair', at: 11, fixes: ['Line 3 was unreadable and was left out: not JSON.'], messages: [u1] },
    {
      type: 'message',
      at: 12,
      message: b.message(
        'user',
        [
          {
            type: 'image',
            mediaType: 'image/png',
            data: 'iVBORw0KGgo=',
            meta: { id: 'blk_img', tier: 1, source: 'user', createdAt: 12, pinned: true, compactable: true },
          },
          {
            type: 'tool_result',
            toolUseId: 'toolu_x',
            content: [
              { type: 'text', text: 'ok' },
              { type: 'image', mediaType: 'image/jpeg', data: '/9j/' },
            ],
            isError: true,
            meta: {
              id: 'blk_tr',
              tier: 3,
              source: 'tool',
              createdAt: 12,
              toolUseId: 'toolu_x',
              pinned: false,
              compactable: true,
            },
          },
        ],
        3,
      ),
    },
    {
      type: 'message',
      at: 13,
      message: b.message(
        'assistant',
        [
          {
            type: 'thinking',
            thinking: 'hmm',
            signature: 'sig',
            meta: { id: 'blk_th', tier: 2, source: 'assistant', createdAt: 13, pinned: false, compactable: true },
          },
        ],
        3,
      ),
    },
  ];
}

describe('session entries', () => {
  it('round-trips every entry type through one line each', () => {
    const all = everyEntryType();
    assert.deepEqual(
      new Set(all.map((e) => e.type)),
      new Set(['header', 'message', 'usage', 'compaction', 'restore', 'pin', 'unpin', 'recall', 'repair']),
    );
    for (const e of all) {
      const line = encodeEntry(e);
      assert.ok(!line.includes('\n') && !line.includes('\r'), `${e.type} is one line`);
      assert.ok(line.startsWith(`{"type":"${e.type}"`), `${e.type} starts with its type`);
      const d = decodeLine(line);
      assert.ok(d.ok, `${e.type}: ${d.ok ? '' : d.reason}`);
      assert.deepEqual(d.entry, e);
    }
  });

  it('keeps newlines, quotes, unicode and lone surrogates inside strings', () => {
    const b = new Build('u');
    const text = 'a\nb\r\n"c"\\ \u2028 é 🙂 \ud800 end';
    const e: SessionEntry = { type: 'message', at: 1, message: b.message('user', [b.text(text)], 1) };
    const d = decodeLine(encodeEntry(e));
    assert.ok(d.ok);
    assert.equal(
      d.entry.type === 'message' && d.entry.message.blocks[0]?.type === 'text' ? d.entry.message.blocks[0].text : '',
      text,
    );
  });

  it('puts type first, does not persist the token-count memo, and reads an undefined tool input back as {}', () => {
    const b = new Build('m');
    const t = b.text('hi');
    t.meta.tokenCount = 3;
    const call = { ...b.toolUse('x'), input: undefined };
    const line = encodeEntry({ at: 1, message: b.message('assistant', [t, call], 1), type: 'message' });
    assert.ok(line.startsWith('{"type":"message",'), 'type first whatever the key order');
    assert.ok(!line.includes('tokenCount'));
    const d = decodeLine(line);
    assert.ok(d.ok && d.entry.type === 'message');
    assert.deepEqual(d.entry.message.blocks[1]?.type === 'tool_use' && d.entry.message.blocks[1].input, {});
  });

  it('rejects malformed lines with a readable reason', () => {
    const good = encodeEntry(everyEntryType()[1] as SessionEntry);
    const cases: [string, RegExp][] = [
      ['', /empty/],
      [good.slice(0, -5), /not JSON/],
      ['[1,2]', /Invalid type/],
      ['{"type":"nope","at":1}', /type/],
      [good.replace('"at":1', '"at":"1"'), /^at:/],
      [good.replace('"turn":1', '"turn":1,"extra":true'), /extra/],
      [good.replace('"tier":1', '"tier":7'), /tier/],
      [
        encodeEntry(sampleHeader()).replace(`"version":${SESSION_VERSION}`, `"version":${SESSION_VERSION + 1}`),
        /version/,
      ],
    ];
    for (const [line, reason] of cases) {
      const d = decodeLine(line);
      assert.ok(!d.ok, `rejected: ${line.slice(0, 60)}`);
      assert.match(d.reason, reason);
    }
  });

  it('recognises a header written by a newer version', () => {
    assert.equal(
      newerFormatVersion(
        encodeEntry(sampleHeader()).replace(`"version":${SESSION_VERSION}`, `"version":${SESSION_VERSION + 1}`),
      ),
      SESSION_VERSION + 1,
    );
    assert.equal(newerFormatVersion(encodeEntry(sampleHeader())), undefined);
    assert.equal(newerFormatVersion('garbage'), undefined);
  });
});
