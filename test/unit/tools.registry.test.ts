import { strict as assert } from 'node:assert';
import { appendAssistantMessage } from '../../src/core/conversation/assistant';
import { classifyToolCall } from '../../src/core/tools/toolKinds';
import type { ToolSchema } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { decodeLine } from '../../src/core/session/lineCodec';
import { bindTool, type AnyToolDefinition, type ToolSpec } from '../../src/core/tools/toolDefinition';
import { ToolRegistry, withSessionTools, type CallApprover } from '../../src/core/tools/toolRegistry';
import { Build, emptyState, fakeClock } from './support/builders';

const live = () => new AbortController().signal;

/** A minimal tool: `x` must be a string; it echoes it, or runs `run` when given. */
function tool(
  name: string,
  over: Partial<ToolSpec<{ x: string }>> = {},
  run: (x: string) => Promise<{ content: string; isError: boolean }> = async (x) => ({
    content: `got ${x}`,
    isError: false,
  }),
): AnyToolDefinition {
  const spec: ToolSpec<{ x: string }> = {
    schema: {
      name,
      description: `the ${name} tool`,
      inputSchema: { type: 'object', properties: { x: { type: 'string' } } },
    },
    effect: 'external',
    origin: { kind: 'mcp', server: 'srv', tool: name },
    approval: 'none',
    readOnly: false,
    validate: (input) =>
      typeof input === 'object' && input !== null && typeof (input as { x?: unknown }).x === 'string'
        ? { ok: true, input: input as { x: string } }
        : { ok: false, error: `${name}: "x" is required (a string).` },
    target: (input) => input.x,
    ...over,
  };
  return bindTool(spec, async (input) => run(input.x));
}

describe('tools: one registry routes every tool by name', () => {
  it('offers the offered definitions in order, stamped with effect and server, as the same objects while unchanged', () => {
    let on = false;
    const a = tool('a', { effect: 'read', origin: { kind: 'builtin' } });
    const b = { ...tool('b'), offered: () => on };
    const c = tool('c');
    const reg = new ToolRegistry({ definitions: () => [a, b, c], now: () => 0 });
    const first = reg.schemas();
    assert.deepEqual(
      first.map((s) => [s.name, s.effect, s.server]),
      [
        ['a', 'read', undefined],
        ['c', 'external', 'srv'],
      ],
    );
    assert.equal(reg.schemas(), first, 'the same array while nothing changed');
    on = true;
    const second = reg.schemas();
    assert.deepEqual(
      second.map((s) => s.name),
      ['a', 'b', 'c'],
    );
    assert.equal(second[0], first[0], 'the same schema object for the same definition (token memo)');
  });

  it('checks input, times the call, and caps and mends the text it returns', async () => {
    let t = 100;
    const reg = new ToolRegistry({
      definitions: () => [
        tool('echo'),
        tool('big', {}, async () => ({ content: `${'y'.repeat(50)}\ud800`, isError: false })),
      ],
      now: () => (t += 5),
      maxResultChars: 20,
    });
    assert.deepEqual(await reg.run({ id: 'toolu_1', name: 'echo', input: { x: 'hi' } }, live()), {
      content: 'got hi',
      isError: false,
      durationMs: 5,
    });
    const bad = await reg.run({ id: 'toolu_2', name: 'echo', input: {} }, live());
    assert.deepEqual([bad.isError, bad.content], [true, 'echo: "x" is require'], 'errors are capped too');
    const big = await reg.run({ id: 'toolu_3', name: 'big', input: { x: '' } }, live());
    assert.ok(typeof big.content === 'string' && big.content.length <= 20 && !/[\ud800-\udfff]/.test(big.content));
  });

  it('turns an unknown tool and a throwing tool into error results naming them', async () => {
    const reg = new ToolRegistry({
      definitions: () => [
        tool('ok'),
        tool('boom', {}, async () => {
          throw new Error('socket closed');
        }),
      ],
      now: () => 0,
    });
    const unknown = await reg.run({ id: 't', name: 'nope', input: {} }, live());
    assert.deepEqual([unknown.isError, unknown.content], [true, 'Unknown tool "nope". The tools are: ok, boom.']);
    const boom = await reg.run({ id: 't', name: 'boom', input: { x: '1' } }, live());
    assert.equal(boom.isError, true);
    assert.match(String(boom.content), /^boom failed: socket closed\./);
  });

  it('asks before a tool whose approval is `ask`, runs it only when approved, and passes a reason on', async () => {
    const ran: string[] = [];
    const asking = tool('ask', { approval: 'ask' }, async (x) => {
      ran.push(x);
      return { content: 'done', isError: false };
    });
    const asked: string[] = [];
    const answers = [{ approved: true }, { approved: false, reason: 'not on prod' }];
    const approve: CallApprover = async (req) => {
      asked.push(`${req.definition.schema.name}:${JSON.stringify(req.input)}:${req.toolUseId}`);
      return answers.shift() ?? { approved: false };
    };
    const reg = new ToolRegistry({ definitions: () => [asking], now: () => 0, approve });
    assert.equal((await reg.run({ id: 'toolu_a', name: 'ask', input: { x: '1' } }, live())).content, 'done');
    const declined = await reg.run({ id: 'toolu_b', name: 'ask', input: { x: '2' } }, live());
    assert.equal(declined.isError, true);
    assert.match(
      String(declined.content),
      /^The user declined this call to ask\. Their reason: not on prod\.\nIt did not run\./,
    );
    assert.deepEqual(ran, ['1']);
    assert.deepEqual(asked, ['ask:{"x":"1"}:toolu_a', 'ask:{"x":"2"}:toolu_b']);
    // Without an approver, a tool that must ask never runs.
    const none = new ToolRegistry({ definitions: () => [asking], now: () => 0 });
    assert.equal((await none.run({ id: 't', name: 'ask', input: { x: '3' } }, live())).isError, true);
    assert.deepEqual(ran, ['1']);
  });

  it('does not run a tool when Stop came during its approval', async () => {
    const stop = new AbortController();
    let ran = false;
    const reg = new ToolRegistry({
      definitions: () => [
        tool('ask', { approval: 'ask' }, async () => {
          ran = true;
          return { content: 'x', isError: false };
        }),
      ],
      now: () => 0,
      approve: async () => {
        stop.abort();
        return { approved: true };
      },
    });
    const out = await reg.run({ id: 't', name: 'ask', input: { x: '1' } }, stop.signal);
    assert.deepEqual([out.isError, out.content, ran], [true, 'ask: stopped by the user before it finished.', false]);
  });

  it('keeps images and caps each text part of a mixed result', async () => {
    const png = { type: 'image' as const, mediaType: 'image/png' as const, data: 'iVBORw0KGgo=' };
    const reg = new ToolRegistry({
      definitions: () => [
        bindTool(tool('shot') as ToolSpec<{ x: string }>, async () => ({
          content: [{ type: 'text', text: 'z'.repeat(100) }, png, { type: 'text', text: '' }],
          isError: false,
        })),
      ],
      now: () => 0,
      maxResultChars: 30,
    });
    const out = await reg.run({ id: 't', name: 'shot', input: { x: '' } }, live());
    assert.ok(Array.isArray(out.content));
    const parts = out.content as readonly { type: string; text?: string }[];
    assert.deepEqual(
      parts.map((p) => p.type),
      ['text', 'image'],
    );
    assert.ok((parts[0]?.text?.length ?? 0) <= 30);
  });

  it('a session overlay runs its own tools and passes the rest on', async () => {
    const inner = { run: async () => ({ content: 'inner', isError: false }) };
    const runner = withSessionTools(inner, [tool('mine', { origin: { kind: 'session' } })], () => 0);
    assert.equal((await runner.run({ id: 't', name: 'mine', input: { x: 'a' } }, live())).content, 'got a');
    assert.equal((await runner.run({ id: 't', name: 'other', input: {} }, live())).content, 'inner');
  });
});

describe('tools: what a call did is recorded from its definition', () => {
  const tools: ToolSchema[] = [
    { name: 'mcp__fs__read_file', description: 'd', inputSchema: { type: 'object' }, effect: 'external', server: 'fs' },
    { name: 'open_doc', description: 'd', inputSchema: { type: 'object' }, effect: 'read' },
  ];

  it('an appended call carries its tool effect, and classification follows it over the name', () => {
    const clock = fakeClock();
    const ids = counterIds('a');
    const user = new Build('u').message('user', [new Build('u2').text('go')], 1);
    const r = appendAssistantMessage(
      emptyState({ tools, messages: [user] }),
      [
        { type: 'tool_use', id: 'toolu_1', name: 'mcp__fs__read_file', input: { path: 'a.ts' } },
        { type: 'tool_use', id: 'toolu_2', name: 'open_doc', input: { path: 'b.ts' } },
        { type: 'tool_use', id: 'toolu_3', name: 'read_file', input: { path: 'c.ts' } },
      ],
      { clock, ids },
    );
    assert.ok(r.ok);
    const uses = r.message.blocks.filter((b) => b.type === 'tool_use');
    assert.deepEqual(
      uses.map((b) => b.meta.effect),
      ['external', 'read', undefined],
    );
    // An MCP tool named like a read is not a file read; a read named otherwise is; an unknown name goes by its name.
    assert.deepEqual(
      uses.map((b) => [classifyToolCall(b).kind, classifyToolCall(b).path]),
      [
        ['other', 'a.ts'],
        ['read', 'b.ts'],
        ['read', 'c.ts'],
      ],
    );
  });

  it('the effect survives the session file', () => {
    const b = new Build('s');
    const use = { ...b.toolUse('open_doc', { path: 'b.ts' }) };
    const withEffect = { ...use, meta: { ...use.meta, effect: 'read' as const } };
    const line = JSON.stringify({ type: 'message', at: 1, message: b.message('assistant', [withEffect], 1) });
    const decoded = decodeLine(line);
    assert.ok(decoded.ok, JSON.stringify(decoded));
    const entry = decoded.entry as unknown as { message: { blocks: { meta: { effect?: string } }[] } };
    assert.equal(entry.message.blocks[0]?.meta.effect, 'read');
  });
});
