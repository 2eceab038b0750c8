import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { parseChatToHost, parseChatToWebview } from '../../src/protocol/chat';

describe('chat protocol', () => {
  it('accepts every well-formed webview message', () => {
    assert.ok(parseChatToHost({ type: 'ready' }).ok);
    assert.ok(parseChatToHost({ type: 'preview', requestId: 3, text: 'hello' }).ok);
    assert.ok(parseChatToHost({ type: 'send', text: 'hello' }).ok);
    assert.ok(parseChatToHost({ type: 'stop' }).ok);
    assert.ok(parseChatToHost({ type: 'retry' }).ok);
    assert.ok(parseChatToHost({ type: 'command', command: 'setApiKey' }).ok);
  });

  it('rejects malformed messages with a reason naming the field', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /Invalid type/],
      ['ready', /Invalid type/],
      [{ type: 'nope' }, /type/],
      [{ type: 'preview', requestId: -1, text: 'x' }, /requestId/],
      [{ type: 'preview', requestId: 1, text: 42 }, /text/],
      [{ type: 'command', command: 'workbench.action.terminal.new' }, /command/],
      [{ type: 'ready', extra: true }, /extra|key/i],
    ];
    for (const [input, reason] of cases) {
      const r = parseChatToHost(input);
      assert.ok(!r.ok, JSON.stringify(input));
      assert.match(r.error, reason);
    }
  });

  it('refuses a message longer than 16 Mi characters but takes a 10 MB paste', () => {
    assert.ok(parseChatToHost({ type: 'preview', requestId: 1, text: 'a'.repeat(10 * 1024 * 1024) }).ok);
    const big = parseChatToHost({ type: 'preview', requestId: 1, text: 'a'.repeat(16 * 1024 * 1024 + 1) });
    assert.ok(!big.ok && /longer than 16,777,216 characters/.test(big.error));
  });

  it('never throws on arbitrary input (property)', () => {
    fc.assert(fc.property(fc.anything(), (x) => void parseChatToHost(x)));
    fc.assert(fc.property(fc.anything(), (x) => void parseChatToWebview(x)));
  });

  it('validates host messages, including the nested preview result variant', () => {
    assert.ok(parseChatToWebview({ type: 'previewResult', requestId: 1, ok: false, error: 'empty' }).ok);
    assert.ok(!parseChatToWebview({ type: 'previewResult', requestId: 1, ok: true, error: 'x' }).ok);
    assert.ok(
      parseChatToWebview({
        type: 'status',
        version: '0.1.0',
        model: 'm',
        contextWindow: 1,
        outputReserve: 1,
        softThreshold: 0.7,
        hardThreshold: 0.9,
        autoCompact: true,
        apiKey: 'missing',
        busy: false,
        sessionTitle: 't',
        promptTokens: 0,
        costUsd: 0,
        warnings: [],
      }).ok,
    );
    assert.ok(
      parseChatToWebview({
        type: 'upsert',
        item: {
          kind: 'tool',
          id: 'toolu_1',
          name: 'read_file',
          summary: 'Read a.ts',
          input: '{}',
          status: 'done',
          result: 'x',
        },
      }).ok,
    );
    // The summary is one line, and every tool item has one; the honest states are states.
    const tool = { kind: 'tool', id: 'toolu_1', name: 'edit_file', summary: 'Edit a.ts +1 −1', input: '{}' };
    for (const status of ['awaiting', 'declined'])
      assert.ok(parseChatToWebview({ type: 'upsert', item: { ...tool, status, reason: 'tabs' } }).ok, status);
    assert.ok(!parseChatToWebview({ type: 'upsert', item: { ...tool, status: 'done', summary: 'Edit\na.ts' } }).ok);
    assert.ok(!parseChatToWebview({ type: 'upsert', item: { ...tool, status: 'done', summary: undefined } }).ok);
    assert.ok(!parseChatToWebview({ type: 'upsert', item: { ...tool, status: 'done', summary: 's'.repeat(401) } }).ok);
    assert.ok(
      !parseChatToWebview({
        type: 'upsert',
        item: { kind: 'tool', id: 'toolu_1', name: 'read_file', summary: 'Read a.ts', input: '{}', status: 'exploded' },
      }).ok,
    );
    assert.ok(parseChatToWebview({ type: 'delta', id: 'stream-1', text: 'Hel' }).ok);
    assert.ok(
      parseChatToWebview({
        type: 'upsert',
        item: {
          kind: 'summary',
          id: 's1',
          firstTurn: 1,
          lastTurn: 4,
          text: 'We fixed auth.ts:42.',
          compactionId: 'c1',
        },
      }).ok,
    );
    assert.ok(
      !parseChatToWebview({ type: 'upsert', item: { kind: 'summary', id: 's1', firstTurn: 1, text: 'x' } }).ok,
      'a summary item needs its turn range and compaction',
    );
    assert.ok(!parseChatToWebview({ type: 'send', text: 'host never sends this' }).ok);
  });
});

describe('chat protocol: what the webview may ask', () => {
  it('offers no command that changes a setting or runs a tool without asking', () => {
    for (const command of [
      'toggleEditorContext',
      'pinSelection',
      'restoreCompaction',
      'workbench.action.openSettings',
    ]) {
      assert.ok(!parseChatToHost({ type: 'command', command }).ok, command);
    }
  });
});
