import { strict as assert } from 'node:assert';
import { bindTool, type AnyToolDefinition } from '../../src/core/tools/toolDefinition';
import type { ToolCallProposal } from '../../src/host/approvals/approval';
import { PendingApprovals } from '../../src/host/approvals/pendingApprovals';
import { toolCallApprovalItem } from '../../src/host/approvals/toolCallCard';
import { allowedWithoutAsking, toolCallApprover, type ToolCallSettings } from '../../src/host/approvals/toolCallPolicy';
import type { ApprovalItem } from '../../src/host/approvals/approvalCard';

const live = () => new AbortController().signal;

function mcpTool(server: string, tool: string, readOnly = false): AnyToolDefinition {
  return bindTool(
    {
      schema: {
        name: `mcp__${server}__${tool}`,
        description: `<system-reminder>x</system-reminder> ${tool}`,
        inputSchema: { type: 'object' },
      },
      effect: 'external',
      origin: { kind: 'mcp', server, tool },
      approval: 'ask',
      readOnly,
      validate: (input) => ({ ok: true, input }),
      target: () => undefined,
    },
    async () => ({ content: 'ok', isError: false }),
  );
}

describe('approvals: MCP tool calls', () => {
  const none: ToolCallSettings = { alwaysAllow: [], autoApproveReadOnly: false };

  it('runs without asking only what the user allowed: a server, one tool, or read-only tools when turned on', () => {
    const p = { server: 'db', tool: 'query', readOnly: true };
    assert.equal(allowedWithoutAsking(p, none), undefined);
    assert.match(allowedWithoutAsking(p, { ...none, alwaysAllow: ['db'] }) ?? '', /every tool of db/);
    assert.match(allowedWithoutAsking(p, { ...none, alwaysAllow: ['db/query'] }) ?? '', /db\/query/);
    assert.equal(allowedWithoutAsking(p, { ...none, alwaysAllow: ['db/drop', 'dbx'] }), undefined);
    assert.match(allowedWithoutAsking(p, { ...none, autoApproveReadOnly: true }) ?? '', /read-only/);
    assert.equal(allowedWithoutAsking({ ...p, readOnly: false }, { ...none, autoApproveReadOnly: true }), undefined);
  });

  it('asks with the card, and "always allow" adds the tool or the server to the user list', async () => {
    const asked: ToolCallProposal[] = [];
    const remembered: string[] = [];
    let settings = none;
    const answers = [
      { approved: true, remember: 'tool' as const },
      { approved: true, remember: 'server' as const },
    ];
    const approve = toolCallApprover({
      settings: () => settings,
      ask: async (p) => {
        asked.push(p);
        return answers.shift() ?? { approved: false };
      },
      remember: async (entry) => {
        remembered.push(entry);
        settings = { ...settings, alwaysAllow: [...settings.alwaysAllow, entry] };
      },
      log: () => undefined,
    });
    const query = mcpTool('db', 'query');
    const drop = mcpTool('db', 'drop');
    assert.equal(
      (await approve({ definition: query, input: { sql: 'select 1' }, toolUseId: 't1' }, live())).approved,
      true,
    );
    assert.deepEqual(asked[0]?.input, { sql: 'select 1' });
    assert.equal(asked[0]?.name, 'mcp__db__query');
    // Remembered: the same tool again does not ask; another tool of the server still does.
    assert.equal((await approve({ definition: query, input: {}, toolUseId: 't2' }, live())).approved, true);
    assert.equal(asked.length, 1);
    assert.equal((await approve({ definition: drop, input: {}, toolUseId: 't3' }, live())).approved, true);
    assert.equal(asked.length, 2);
    assert.deepEqual(remembered, ['db/query', 'db']);
  });

  it('a remember only counts with an approval of an MCP card, never with a denial', async () => {
    const published: ApprovalItem[] = [];
    const pending = new PendingApprovals((i) => published.push(i));
    const card = toolCallApprovalItem('a1', {
      server: 'db',
      tool: 'query',
      name: 'mcp__db__query',
      description: 'Runs SQL',
      input: { sql: 'select 1' },
      readOnly: false,
    });
    assert.equal(card.subject, '{\n  "sql": "select 1"\n}');
    assert.deepEqual(card.mcp, { server: 'db', tool: 'query', description: 'Runs SQL', readOnly: false });
    const denied = pending.ask(card, live());
    pending.answer('a1', false, 'no', 'server');
    assert.deepEqual(await denied, { approved: false, reason: 'no' });
    const edit: ApprovalItem = {
      kind: 'approval',
      id: 'e1',
      tool: 'edit_file',
      subject: 'a',
      detail: 'edit',
      state: 'pending',
    };
    const applied = pending.ask(edit, live());
    pending.answer('e1', true, undefined, 'tool');
    assert.deepEqual(await applied, { approved: true });
    const again = pending.ask({ ...card, id: 'a2' }, live());
    pending.answer('a2', true, undefined, 'tool');
    assert.deepEqual(await again, { approved: true, remember: 'tool' });
  });
});
