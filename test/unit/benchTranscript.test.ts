import { strict as assert } from 'node:assert';
import { parseTranscript } from '../../bench/transcript';

const line = (o: unknown): string => JSON.stringify(o);

describe('bench transcript parser', () => {
  it('parses messages, usage and compaction in order, with meta on every block', () => {
    const text = [
      line({ kind: 'message', message: { role: 'user', content: 'hello' } }),
      line({ kind: 'usage', model: 'claude-sonnet-4-5', usage: { input_tokens: 3, cache_read_input_tokens: 0, cache_creation_input_tokens: 100, output_tokens: 5 } }),
      line({ kind: 'message', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm' }, { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } }] } }),
      line({ kind: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'adjacent assistant message' }] } }),
      '',
      line({ kind: 'message', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'x' }], is_error: true }] } }),
      line({ kind: 'usage', model: 'gpt-x', usage: null }),
      line({ kind: 'compaction', summary: 'what happened', tokensBefore: 1234 }),
    ].join('\n');
    const ev = parseTranscript(text);
    assert.deepEqual(ev.map((e) => e.kind), ['message', 'usage', 'message', 'message', 'message', 'usage', 'compaction']);
    assert.deepEqual(ev.map((e) => e.line), [1, 2, 3, 4, 6, 7, 8]);
    const msgs = ev.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
    const ids = new Set(msgs.flatMap((m) => m.blocks.map((b) => b.meta.id)));
    assert.equal(ids.size, 5, 'unique block ids');
    assert.equal(msgs[0]?.blocks[0]?.type, 'text');
    const thinking = msgs[1]?.blocks[0];
    assert.ok(thinking?.type === 'thinking' && thinking.signature === undefined);
    const result = msgs[3]?.blocks[0];
    assert.ok(result?.type === 'tool_result' && result.isError === true && result.meta.toolUseId === 'toolu_1' && result.meta.tier === 3);
    const usage = ev[5];
    assert.ok(usage?.kind === 'usage' && usage.usage === null);
    const compaction = ev[6];
    assert.ok(compaction?.kind === 'compaction' && compaction.message.blocks[0]?.type === 'summary');
    assert.deepEqual(msgs.map((m) => m.turn), [1, 1, 1, 1]);
  });

  it('names the line of a malformed record', () => {
    const ok = line({ kind: 'message', message: { role: 'user', content: 'hi' } });
    assert.throws(() => parseTranscript(`${ok}\n{not json`, 'f.jsonl'), /^Error: f\.jsonl:2: not valid JSON/);
    assert.throws(() => parseTranscript(`${ok}\n${ok}\n${line({ kind: 'usage', usage: { input_tokens: -1 } })}`, 'f.jsonl'), /f\.jsonl:3: usage: "input_tokens"/);
    assert.throws(() => parseTranscript(line({ kind: 'message', message: { role: 'system', content: 'x' } }), 'f.jsonl'), /f\.jsonl:1: "role"/);
    assert.throws(() => parseTranscript(line({ kind: 'message', message: { role: 'user', content: [{ type: 'document' }] } }), 'f.jsonl'), /f\.jsonl:1: block 1: unsupported block type "document"/);
    assert.throws(() => parseTranscript(line({ kind: 'weird' }), 'f.jsonl'), /f\.jsonl:1: unknown kind "weird"/);
  });
});
