import { strict as assert } from 'node:assert';
import { createRouter, type Handlers } from '../../src/app/router';
import { parseBudgetToHost, type BudgetToHost } from '../../src/protocol/budget';
import { parseChatToHost, type ChatToHost } from '../../src/protocol/chat';

/** One valid message of each type (the mapped type makes this list exhaustive too). */
const chatSamples: { [K in ChatToHost['type']]: Extract<ChatToHost, { type: K }> } = {
  ready: { type: 'ready' },
  send: { type: 'send', text: 'hi' },
  stop: { type: 'stop' },
  retry: { type: 'retry' },
  retryLast: { type: 'retryLast', messageId: 'msg_3' },
  editLast: { type: 'editLast', messageId: 'msg_3', text: 'new words' },
  rewindTo: { type: 'rewindTo', messageId: 'msg_1' },
  preview: { type: 'preview', requestId: 1, text: 'draft' },
  command: { type: 'command', command: 'newSession' },
  pin: { type: 'pin', messageId: 'm1', pinned: true },
  slash: { type: 'slash', name: 'compact', arg: 'keep the plan' },
  openLink: { type: 'openLink', href: 'https://example.com/' },
  approval: { type: 'approval', id: 'ap-1', approved: false, reason: 'no' },
  openDiff: { type: 'openDiff', id: 'ap-1' },
  dismissContext: { type: 'dismissContext', key: 'ide_opened_file:a.ts' },
  copy: { type: 'copy', text: 'copied' },
  mentionQuery: { type: 'mentionQuery', requestId: 3, query: 'a.t' },
  attachFile: { type: 'attachFile', path: 'src/a.ts' },
  openCompacted: { type: 'openCompacted', compactionId: 'cmp_1' },
  openClearedResult: { type: 'openClearedResult', toolUseId: 'toolu_1' },
  openSubagent: { type: 'openSubagent', sessionId: '2026-11-29T01-00-00-abc123' },
  openSession: { type: 'openSession', sessionId: '2026-11-28T01-00-00-old123' },
  clearPlan: { type: 'clearPlan' },
};

const budgetSamples: { [K in BudgetToHost['type']]: Extract<BudgetToHost, { type: K }> } = {
  ready: { type: 'ready' },
  restore: { type: 'restore', id: 'c-1' },
  unpin: { type: 'unpin', kind: 'block', id: 'b-1' },
  mcpServer: { type: 'mcpServer', action: 'retry', server: 'fs' },
  mcpTool: { type: 'mcpTool', server: 'fs', tool: 'read_text_file', enabled: false },
};

/** A handler map that records which handler got what (with the context it was given). */
function recording<M extends { readonly type: string }>(types: readonly M['type'][]) {
  const got: Array<{ handler: string; message: unknown; ctx: string }> = [];
  const handlers = Object.fromEntries(
    types.map((type) => [type, (message: unknown, ctx: string) => void got.push({ handler: type, message, ctx })]),
  ) as unknown as Handlers<M, string>;
  return { got, handlers };
}

describe('webview routers (one exhaustive handler map per webview)', () => {
  for (const [name, parse, samples] of [
    ['chat', parseChatToHost, chatSamples],
    ['budget', parseBudgetToHost, budgetSamples],
  ] as const) {
    describe(`the ${name} router`, () => {
      const types = Object.keys(samples);

      it('sends a message of each type to its own handler, and to no other', async () => {
        const r = recording<{ type: string }>(types);
        const invalid: string[] = [];
        const route = createRouter<{ type: string }, string>(
          parse as (raw: unknown) => ReturnType<typeof parseChatToHost>,
          r.handlers,
          (e) => void invalid.push(e),
        );
        for (const message of Object.values(samples)) {
          const routed = await route(structuredClone(message), 'ctx');
          assert.deepEqual(routed, { ok: true, type: message.type });
        }
        assert.deepEqual(
          r.got.map((g) => g.handler),
          types,
        );
        assert.deepEqual(
          r.got.map((g) => g.message),
          Object.values(samples),
        );
        assert.ok(r.got.every((g) => g.ctx === 'ctx'));
        assert.deepEqual(invalid, []);
      });

      it('refuses an invalid message with a clear reason, and runs no handler', async () => {
        const r = recording<{ type: string }>(types);
        const invalid: string[] = [];
        const route = createRouter<{ type: string }, string>(
          parse as (raw: unknown) => ReturnType<typeof parseChatToHost>,
          r.handlers,
          (e) => void invalid.push(e),
        );
        const bad = [{ type: 'nope' }, { type: types[1], extra: 1 }, 'ready', null];
        for (const raw of bad) {
          const routed = await route(raw, 'ctx');
          assert.equal(routed.ok, false);
        }
        assert.deepEqual(r.got, []);
        assert.equal(invalid.length, bad.length);
        assert.ok(invalid.every((e) => e.length > 0));
      });
    });
  }

  it('names the failing field of an invalid message', async () => {
    const invalid: string[] = [];
    const route = createRouter(
      parseChatToHost,
      recording<ChatToHost>(Object.keys(chatSamples) as ChatToHost['type'][]).handlers,
      (e) => void invalid.push(e),
    );
    const routed = await route({ type: 'send', text: 42 }, 'ctx');
    assert.equal(routed.ok, false);
    assert.match(invalid[0] ?? '', /^text: .*string/);
  });

  it('lets a handler failure reach the caller (who reports it)', async () => {
    const { handlers } = recording<BudgetToHost>(['ready', 'restore', 'unpin']);
    const route = createRouter<BudgetToHost, string>(
      parseBudgetToHost,
      { ...handlers, restore: () => Promise.reject(new Error('disk full')) },
      () => undefined,
    );
    await assert.rejects(route({ type: 'restore', id: 'c-1' }, 'ctx'), /disk full/);
  });

  it('does not compile when a message type has no handler', () => {
    const noop = () => undefined;
    // @ts-expect-error -- `unpin` has no handler
    const missing: Handlers<BudgetToHost> = { ready: noop, restore: noop };
    assert.equal(Object.keys(missing).length, 2);
  });
});
