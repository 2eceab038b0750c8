/**
 * Hand-made session files (issue 34 #14): what a person or a tool can write into the JSONL
 * that the extension itself never does, read without throwing and without losing the user's
 * words.
 */
import { strict as assert } from 'node:assert';
import { SESSION_FORMAT, SESSION_VERSION } from '../../src/core/session/entries';
import { decodeLine, MAX_LINE_DEPTH } from '../../src/core/session/lineCodec';
import { analyzeSession } from '../../src/host/sessions/sessionLoader';

const meta = (id: string, source: string) =>
  `{"id":"${id}","tier":1,"source":"${source}","createdAt":1,"pinned":false,"compactable":false}`;
const header = `{"type":"header","format":"${SESSION_FORMAT}","version":${SESSION_VERSION},"sessionId":"s1","createdAt":1,"model":"claude-sonnet-4-6","workspace":""}`;
const user = (id: string, turn: number, words: string, extra = '') =>
  `{"type":"message","at":${turn},"message":{"id":"${id}","role":"user","turn":${turn},"blocks":[{"type":"text","text":"${words}",${extra}"meta":${meta(`b${id}`, 'user')}}]}}`;
const answer = (id: string, turn: number, input: string) =>
  `{"type":"message","at":${turn},"message":{"id":"${id}","role":"assistant","turn":${turn},"blocks":[{"type":"tool_use","id":"t${id}","name":"list_files","input":${input},"meta":${meta(`b${id}`, 'assistant').replace('}', `,"toolUseId":"t${id}"}`)}}]}}`;

describe('hand-made session files', () => {
  it('a line nested thousands of levels deep is refused with a reason, and the load neither throws nor loses words', () => {
    const deep = '{"a":'.repeat(4_000) + '1' + '}'.repeat(4_000);
    const d = decodeLine(answer('m2', 1, deep));
    assert.equal(d.ok, false);
    if (!d.ok) assert.match(d.reason, new RegExp(`nested 4,00\\d levels deep \\(at most ${MAX_LINE_DEPTH}\\)`));
    const bytes = new TextEncoder().encode(
      [header, user('m1', 1, 'my question'), answer('m2', 1, deep), ''].join('\n'),
    );
    const a = analyzeSession(bytes, 's1', 5);
    const session = a.session;
    assert.ok(session, 'the file is read');
    const words = session.messages.flatMap((m) => m.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])));
    assert.ok(words.includes('my question'));
    assert.doesNotThrow(() => JSON.stringify(session.messages), 'what was read can be sent');
    assert.ok(
      a.fixes.some((f) => /nested 4,00\d levels deep/.test(f)),
      a.fixes.join(' | '),
    );
  });

  it('an entry with its own __proto__ key keeps the user’s words (the key is left out)', () => {
    const d = decodeLine(user('m1', 1, 'my words', '"__proto__":{"polluted":true},'));
    assert.ok(d.ok, d.ok ? '' : d.reason);
    if (d.ok && d.entry.type === 'message') {
      const b = d.entry.message.blocks[0];
      assert.equal(b?.type === 'text' ? b.text : undefined, 'my words');
    }
    assert.equal(({} as { polluted?: boolean }).polluted, undefined, 'no prototype was touched');
  });

  it('a version 1 compaction of a layer this version does not know reads as a summary', () => {
    const line =
      '{"type":"compaction","at":5,"id":"cmp_1","trigger":"manual","replacedIds":[],"originals":[],"replacement":[],' +
      '"tokensBefore":10,"tokensAfter":5,"meta":{"layer":"quantum-fold","strategy":"x"}}';
    const d = decodeLine(line, 1);
    assert.ok(d.ok && d.entry.type === 'compaction', d.ok ? '' : d.reason);
    if (d.ok && d.entry.type === 'compaction') assert.equal(d.entry.layer, 'summarise');
  });
});
