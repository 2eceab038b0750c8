/**
 * Unseen sessions with structural warts (families 08, 09, 18): interrupted calls, duplicated
 * and invalid tool-use ids, orphan results, empty and adjacent messages, retried requests,
 * blocks in the wrong role, non-object tool inputs; lone surrogates and NUL in every kind of
 * block (and a surrogate pair split where a spill preview would cut); mislabelled image media
 * types, empty error results, extra block fields, images and server-tool blocks in assistant
 * messages, thinking in a user message. Each session must replay with no invalid request.
 */
import type { UnseenCase } from './context';
import { insertionPoint, insertRound } from './fixtures';
import { jpegLikeBase64, pngBase64, webpLikeBase64 } from './images';
import { messageRecord as m, spreadable, type Block, type TranscriptRecord } from './records';

/** Splices `records` at the insertion point of the n-th request. */
function putAt(records: TranscriptRecord[]): (n: number, ...inserted: TranscriptRecord[]) => void {
  return (n, ...inserted) => void records.splice(insertionPoint(records, n), 0, ...inserted);
}

/** A request of a model with no `at`, its usage to be filled. */
function request(model: string): TranscriptRecord {
  return { kind: 'usage', model, usage: {}, plan: { fresh: true } };
}

const structural: UnseenCase = {
  name: '08-structural-warts-sonnet',
  build: (ctx) => {
    const rng = ctx.rng(801);
    const records = ctx.fixture('sonnet');
    const put = putAt(records);
    const u = () => request('claude-sonnet-4-5');
    const use = (id: string, name: string, input: unknown): Block => ({ type: 'tool_use', id, name, input });
    const result = (id: string, content: unknown): Block => ({ type: 'tool_result', tool_use_id: id, content });
    const dup = rng.toolId();
    // An interrupted call followed by the user's words; one followed directly by another assistant message.
    put(
      10,
      u(),
      m('assistant', [use(rng.toolId(), 'bash', { command: 'sleep 100' })]),
      m('user', [{ type: 'text', text: 'stop, do something else' }]),
    );
    put(
      20,
      u(),
      m('assistant', [use(rng.toolId(), 'bash', { command: 'x' })]),
      u(),
      m('assistant', [{ type: 'text', text: 'Retrying.' }]),
      m('user', 'ok'),
    );
    // A duplicated id: twice in one message, and again later.
    put(
      30,
      u(),
      m('assistant', [use(dup, 'read', { path: 'a' }), use(dup, 'read', { path: 'b' })]),
      m('user', [result(dup, 'A'), result(dup, 'B')]),
    );
    put(40, u(), m('assistant', [use(dup, 'read', { path: 'c' })]), m('user', [result(dup, 'C')]));
    // An orphan result, empty user content, adjacent user messages, results after text.
    put(
      50,
      m('user', [result('toolu_nobody', 'orphan')]),
      m('user', []),
      m('user', [
        { type: 'text', text: '' },
        { type: 'text', text: '  \n' },
      ]),
    );
    const a = rng.toolId();
    put(
      60,
      u(),
      m('assistant', [use(a, 'read', { path: 'z' })]),
      m('user', [{ type: 'text', text: 'also look at y' }, result(a, 'Z')]),
    );
    // Invalid ids, non-object inputs, null content, an empty assistant message, is_error on an empty result.
    const bad = 'call_abc|fc_123';
    put(
      70,
      u(),
      m('assistant', [
        use(bad, 'read', '{"path": "q"'),
        use('call_abc_fc_123', 'read', ['x']),
        use('toolu:9', 'bash', null),
      ]),
      m('user', [
        result(bad, null),
        result('call_abc_fc_123', []),
        { ...result('toolu:9', [{ type: 'text', text: '' }]), is_error: true },
      ]),
    );
    put(80, u(), m('assistant', []), m('user', 'hello?'));
    put(
      90,
      u(),
      m('assistant', [
        { type: 'text', text: '' },
        { type: 'thinking', thinking: 'x', signature: '' },
      ]),
      m('user', 'again'),
    );
    // Usage twice in a row (a retried request), tool_result in an assistant message, tool_use in a user message.
    put(
      100,
      u(),
      u(),
      m('assistant', [{ type: 'text', text: 'retried' }, result('toolu_x', 'weird')]),
      m('user', [use(rng.toolId(), 'read', {}), { type: 'text', text: 'huh' }]),
    );
    // Starts with an assistant message; ends with an interrupted call and a usage.
    records.unshift(m('assistant', [{ type: 'text', text: 'Resumed session.' }]));
    records.push(u(), m('assistant', [use(rng.toolId(), 'bash', { command: 'npm test' })]), u());
    return ctx.fill(records);
  },
};

const surrogates: UnseenCase = {
  name: '09-surrogates-nul-cc',
  build: (ctx) => {
    const rng = ctx.rng(901);
    const records = ctx.fixture('cc');
    const bad = (v: unknown) => {
      const s = String(v);
      return `${s.slice(0, 50)}\uD83D\u0000 lone \uDE00 high\uD800${s.slice(50)}\u0000`;
    };
    const spoil = (b: Block): Block => {
      if (b.type === 'text') return { ...b, text: bad(b.text) };
      if (b.type === 'thinking') return { ...b, thinking: bad(b.thinking) };
      if (b.type === 'tool_use')
        return {
          ...b,
          name: String(b.name) + '\uD800',
          input: { ...spreadable(b.input), ['k\uDC00']: bad('v'), nested: [{ deep: bad('x') }] },
        };
      if (b.type === 'tool_result')
        return {
          ...b,
          content:
            typeof b.content === 'string'
              ? bad(b.content)
              : [{ type: 'text', text: bad('part') }, ...(Array.isArray(b.content) ? b.content : [])],
        };
      return b;
    };
    // Every third message with a block array.
    let k = 0;
    for (const r of records) {
      if (r.kind !== 'message' || typeof r.message.content === 'string') continue;
      if (k++ % 3) continue;
      r.message = { ...r.message, content: r.message.content.map(spoil) };
    }
    // A surrogate pair split exactly where a 30 KB spill preview / head cut would fall.
    const id = rng.toolId();
    const s = 'x'.repeat(1999) + '😀'.repeat(20_000);
    insertRound(
      records,
      40,
      [{ type: 'tool_use', id, name: 'Bash', input: { command: 'cat emoji.txt' } }],
      [{ type: 'tool_result', tool_use_id: id, content: s }],
    );
    return ctx.fill(records);
  },
};

const blocks: UnseenCase = {
  name: '18-block-warts-pi',
  build: (ctx) => {
    const rng = ctx.rng(1801);
    const records = ctx.fixture('pi');
    const jpeg = jpegLikeBase64();
    const webp = webpLikeBase64();
    const base64 = (mediaType: string, data: string): Block => ({
      type: 'image',
      source: { type: 'base64', media_type: mediaType, data },
    });
    const put = putAt(records);
    const u = () => request('claude-opus-4-5');
    const ids = Array.from({ length: 6 }, () => rng.toolId());
    const result = (i: number, content: unknown, isError = false): Block => ({
      type: 'tool_result',
      tool_use_id: ids[i],
      content,
      ...(isError ? { is_error: true } : {}),
    });
    // A JPEG labelled PNG, empty and blank error results, a WebP labelled GIF, empty data, extra fields, a URL image.
    put(
      20,
      u(),
      m(
        'assistant',
        ids.map((id) => ({ type: 'tool_use', id, name: 'read', input: { path: 'x.png' } })),
      ),
      m('user', [
        result(0, [base64('image/png', jpeg)]),
        result(1, '', true),
        result(2, [], true),
        result(3, '   ', true),
        result(4, [base64('image/gif', webp), base64('image/png', '')]),
        result(5, [
          { type: 'text', text: 'x', cache_control: { type: 'ephemeral' }, citations: [] },
          { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
        ]),
      ]),
    );
    // Thinking in a user message, with an image and a text with cache_control.
    put(
      40,
      m('user', [
        { type: 'thinking', thinking: 'user thinking?', signature: 'abc' },
        base64('image/jpeg', jpeg),
        { type: 'text', text: 'see pic', cache_control: { type: 'ephemeral', ttl: '1h' } },
      ]),
    );
    // An image in an assistant message; server-tool blocks; a compaction block among thinking and text.
    put(
      60,
      u(),
      m('assistant', [base64('image/png', pngBase64(100, 100, 2000)), { type: 'text', text: 'I drew this.' }]),
      m('user', 'thanks'),
    );
    put(
      80,
      u(),
      m('assistant', [
        { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'x' } },
        {
          type: 'web_search_tool_result',
          tool_use_id: 'srvtoolu_01',
          content: [{ type: 'web_search_result', url: 'https://a', title: 'a', encrypted_content: 'zz' }],
        },
        { type: 'text', text: 'Found it.' },
      ]),
      m('user', 'ok'),
    );
    put(
      100,
      u(),
      m('assistant', [
        { type: 'thinking', thinking: 'short', signature: 'sig'.repeat(40) },
        { type: 'compaction', content: '' },
        { type: 'text', text: 'x ' },
      ]),
      m('user', 'go'),
    );
    return ctx.fill(records);
  },
};

/** Families 08, 09 and 18: structural warts, lone surrogates and NUL, block warts. */
export const WART_CASES: readonly UnseenCase[] = [structural, surrogates, blocks];
