/**
 * Honest tool rows: a call shows "Awaiting approval" while its card waits for the user, then
 * running, then done; a declined call is `declined` with the user's reason (not an error), live
 * and from a saved session; its duration leaves out the time the user took to decide
 * (measured on an injected clock); the approval card says what happened once answered.
 */
import { strict as assert } from 'node:assert';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolCall, ToolCallState, ToolOutcome } from '../../src/core/tools/toolRunner';
import type { AgentEvent } from '../../src/core/agent/events';
import { runToolRound } from '../../src/core/agent/toolRound';
import { declinedMessage, declinedOf } from '../../src/core/tools/approvalWords';
import { EDIT_FILE_SPEC } from '../../src/core/tools/builtin/editFileSpec';
import { bindTool, type AnyToolDefinition, type ToolSpec } from '../../src/core/tools/toolDefinition';
import { ToolRegistry } from '../../src/core/tools/toolRegistry';
import { TranscriptRenderer } from '../../src/host/chat/transcriptRenderer';
import { transcriptOf } from '../../src/host/chat/transcript';
import { WorkspaceToolRunner } from '../../src/host/tools/workspaceToolRunner';
import type { ChatItem } from '../../src/protocol/chatItems';
import type { ChatToWebview } from '../../src/protocol/chat';
import { approvalTitle } from '../../src/webview/chat/approvalCard';
import { Build, fakeClock } from './support/builders';
import { ScriptedApprover, cleanTempDirs, tempDir } from './support/toolsWorkspace';

const live = () => new AbortController().signal;

/** An MCP-like tool that asks the registry before it runs and takes `workMs` on `clock`. */
function askingTool(clock: { advance(ms: number): void }, workMs: number): AnyToolDefinition {
  const spec: ToolSpec<{ x: string }> = {
    schema: { name: 'mcp__srv__echo', description: 'echo', inputSchema: { type: 'object' } },
    effect: 'external',
    origin: { kind: 'mcp', server: 'srv', tool: 'echo' },
    approval: 'ask',
    readOnly: false,
    validate: (input) => ({ ok: true, input: input as { x: string } }),
    target: (input) => input.x,
  };
  return bindTool(spec, async () => (clock.advance(workMs), { content: 'ok', isError: false }));
}

describe('tool rows: the time the user took to decide', () => {
  after(cleanTempDirs);

  it('a call the registry asks about: awaiting, then running; its duration leaves the wait out', async () => {
    const clock = fakeClock(0);
    const states: ToolCallState[] = [];
    const registry = new ToolRegistry({
      definitions: () => [askingTool(clock, 7)],
      now: clock.now,
      approve: async () => {
        assert.deepEqual(states, ['awaiting_approval'], 'awaiting while the user decides');
        clock.advance(45_000);
        return { approved: true };
      },
    });
    const out = await registry.run({ id: 'toolu_1', name: 'mcp__srv__echo', input: { x: 'hi' } }, live(), (s) =>
      states.push(s),
    );
    assert.deepEqual(states, ['awaiting_approval', 'running']);
    assert.equal(out.durationMs, 7);
    assert.equal(out.approvalMs, 45_000);
  });

  it('a call nobody is asked about reports no wait and no state changes', async () => {
    const clock = fakeClock(0);
    const states: ToolCallState[] = [];
    const tool = { ...askingTool(clock, 3), approval: 'none' as const };
    const out = await new ToolRegistry({ definitions: () => [tool], now: clock.now }).run(
      { id: 'toolu_1', name: 'mcp__srv__echo', input: { x: 'hi' } },
      live(),
      (s) => states.push(s),
    );
    assert.deepEqual(states, []);
    assert.equal(out.durationMs, 3);
    assert.equal(out.approvalMs, undefined);
  });

  it('a built-in edit asks through its own card: the wait is left out of its duration', async () => {
    const ws = await tempDir();
    await writeFile(join(ws, 'a.ts'), 'const a = 1;\n');
    const clock = fakeClock(0);
    const approver = new ScriptedApprover({ approved: true }, () => clock.advance(60_000));
    const runner = new WorkspaceToolRunner({
      roots: [ws],
      approver,
      runCommandEnabled: () => false,
      filesExclude: () => ({}),
      now: clock.now,
    });
    const states: ToolCallState[] = [];
    const call = { id: 'toolu_e', name: 'edit_file', input: { path: 'a.ts', old_string: '1', new_string: '2' } };
    const out = await runner.run(call, live(), (s) => states.push(s));
    assert.equal(out.isError, false, String(out.content));
    assert.deepEqual(states, ['awaiting_approval', 'running']);
    assert.equal(out.approvalMs, 60_000);
    assert.equal(out.durationMs, 0, 'the clock moved only while the user decided');
  });

  it('a tool round tells the view when a call waits for approval', async () => {
    const events: AgentEvent[] = [];
    const call: ToolCall = { id: 'toolu_1', name: 'edit_file', input: {} };
    await runToolRound([call], live(), {
      tools: {
        run: async (_c, _s, onState) => {
          onState?.('awaiting_approval');
          onState?.('running');
          return { content: 'ok', isError: false };
        },
      },
      writeFile: async () => undefined,
      spillDirectory: '/tmp',
      contextWindow: 200_000,
      emit: (e) => events.push(e),
    });
    assert.deepEqual(
      events.map((e) => (e.type === 'tool_state' ? `${e.type}:${e.state}` : e.type)),
      ['tool_started', 'tool_state:awaiting_approval', 'tool_state:running', 'tool_finished'],
    );
  });
});

describe('tool rows: awaiting approval, declined', () => {
  const edit = bindTool(EDIT_FILE_SPEC, async () => ({ content: 'ok', isError: false }));
  const lookup = (name: string) => (name === 'edit_file' ? edit : undefined);
  const call: ToolCall = {
    id: 'toolu_1',
    name: 'edit_file',
    input: { path: 'src/auth.ts', old_string: 'a', new_string: 'b' },
  };
  const declined: ToolOutcome = {
    content: `${declinedMessage('this edit to src/auth.ts', { approved: false, reason: 'use\ntabs' })}\nThe file is unchanged.`,
    isError: true,
    durationMs: 4,
  };

  function rendered() {
    const posts: ChatToWebview[] = [];
    const r = new TranscriptRenderer({ post: (m) => void posts.push(m) }, undefined, () => 0, lookup);
    const rows = () =>
      posts.flatMap((p) => (p.type === 'upsert' && p.item.kind === 'tool' ? [p.item] : [])) as Array<
        Extract<ChatItem, { kind: 'tool' }>
      >;
    return { r, rows };
  }

  it('goes running → awaiting approval → running → done, summarised from the definition', () => {
    const { r, rows } = rendered();
    r.render({ type: 'turn_started', turn: 1 });
    r.render({ type: 'tool_started', call });
    r.render({ type: 'tool_state', call, state: 'awaiting_approval' });
    r.render({ type: 'tool_state', call, state: 'running' });
    r.render({
      type: 'tool_finished',
      call,
      outcome: { content: 'Edited src/auth.ts.', isError: false, durationMs: 9 },
    });
    assert.deepEqual(
      rows().map((i) => i.status),
      ['running', 'awaiting', 'running', 'done'],
    );
    assert.ok(rows().every((i) => i.summary === 'Edit src/auth.ts +1 −1' && i.name === 'edit_file'));
    assert.equal(rows().at(-1)?.durationMs, 9);
  });

  it('a view reloaded while the card waits shows the row awaiting approval', () => {
    const { r, rows } = rendered();
    r.render({ type: 'turn_started', turn: 1 });
    r.render({ type: 'tool_started', call });
    r.render({ type: 'tool_state', call, state: 'awaiting_approval' });
    const before = rows().length;
    r.resync([]);
    assert.equal(rows().slice(before).at(-1)?.status, 'awaiting');
  });

  it('a declined call is declined with the reason, not an error — live and from the saved session', () => {
    const { r, rows } = rendered();
    r.render({ type: 'tool_started', call });
    r.render({ type: 'tool_finished', call, outcome: declined });
    const live = rows().at(-1);
    assert.equal(live?.status, 'declined');
    assert.equal(live?.reason, 'use tabs.');

    const b = new Build('d');
    const use = b.toolUse('edit_file', call.input);
    const saved = transcriptOf(
      [
        b.message('user', [b.text('edit it')], 1),
        b.message('assistant', [use], 1),
        b.message('user', [{ ...b.toolResult(use.id, String(declined.content)), isError: true }], 1),
      ],
      undefined,
      false,
      lookup,
    ).find((i) => i.kind === 'tool');
    assert.ok(saved?.kind === 'tool');
    assert.equal(saved.status, 'declined');
    assert.equal(saved.reason, 'use tabs.');
    assert.equal(saved.summary, 'Edit src/auth.ts +1 −1');
  });

  it('reads a decline only from the words that write it', () => {
    assert.deepEqual(declinedOf(`${declinedMessage('x', { approved: false })}\nIt did not run.`), {});
    assert.equal(declinedOf('Exit code 1: The user declined nothing'), undefined);
    assert.equal(declinedOf([{ type: 'text', text: 'The user declined x.' }]), undefined);
  });
});

describe('approval cards say what happened', () => {
  it('an applied edit reads "Edited", a run command "Ran", a rejection "Declined"', () => {
    const edit = { tool: 'edit_file', detail: 'edit' } as const;
    assert.equal(approvalTitle({ ...edit, state: 'pending' }), 'Claude wants to edit ');
    assert.equal(approvalTitle({ ...edit, state: 'approved' }), 'Edited ');
    assert.equal(approvalTitle({ ...edit, state: 'rejected' }), 'Declined the edit of ');
    assert.equal(approvalTitle({ tool: 'edit_file', detail: 'new file', state: 'approved' }), 'Created ');
    const run = { tool: 'run_command', detail: 'in .' } as const;
    assert.equal(approvalTitle({ ...run, state: 'pending' }), 'Claude wants to run a command ');
    assert.equal(approvalTitle({ ...run, state: 'approved' }), 'Ran a command ');
  });
});
