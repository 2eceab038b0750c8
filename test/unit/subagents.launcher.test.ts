import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolSchema } from '../../src/core/conversation/conversationModel';
import { agentSystemPrompt } from '../../src/core/projectContext/staticPrompt';
import { counterIds } from '../../src/core/platform/platformPorts';
import { RECALL_SPEC } from '../../src/core/recall/recallSpec';
import { UPDATE_PLAN_SPEC } from '../../src/core/plan/planSpec';
import { NESTED_TASK_REFUSED, subagentMayUse } from '../../src/core/subagents/childTools';
import { SUBAGENT_PROMPT } from '../../src/core/subagents/subagentPrompt';
import {
  DEFAULT_SUBAGENT_SETTINGS,
  subagentConfig,
  subagentSettingsOf,
} from '../../src/core/subagents/subagentSettings';
import { TASK_SPEC } from '../../src/core/subagents/taskSpec';
import { EDIT_FILE_SPEC } from '../../src/core/tools/builtin/editFileSpec';
import { LIST_FILES_SPEC } from '../../src/core/tools/builtin/listFilesSpec';
import { READ_FILE_SPEC } from '../../src/core/tools/builtin/readFileSpec';
import { RUN_COMMAND_SPEC } from '../../src/core/tools/builtin/runCommandSpec';
import { SEARCH_SPEC } from '../../src/core/tools/builtin/searchSpec';
import { callSummary } from '../../src/core/tools/callSummary';
import type { AnyToolDefinition, ToolSpec } from '../../src/core/tools/toolDefinition';
import { subagentLauncher } from '../../src/host/subagents/subagentLauncher';
import { fakeClock, testConfig } from './support/builders';
import { FakeSettings } from './support/chatServiceFakes';
import { FakeTools, ScriptedLlm } from './support/scriptedLlm';
import { withStorePort } from './support/storePort';
import { countingTokenizer } from './support/tokenFakes';

const def = (spec: ToolSpec<unknown>): AnyToolDefinition => ({
  ...spec,
  execute: async () => ({ content: '', isError: false }),
});
const SPECS = [
  READ_FILE_SPEC,
  LIST_FILES_SPEC,
  SEARCH_SPEC,
  EDIT_FILE_SPEC,
  RUN_COMMAND_SPEC,
  RECALL_SPEC,
  UPDATE_PLAN_SPEC,
  TASK_SPEC,
];
const DEFS = new Map(SPECS.map((s) => [s.schema.name, def(s as ToolSpec<unknown>)]));
const MCP_READ: AnyToolDefinition = {
  ...def(READ_FILE_SPEC as ToolSpec<unknown>),
  schema: { ...READ_FILE_SPEC.schema, name: 'mcp__docs__get' },
  effect: 'external',
  origin: { kind: 'mcp', server: 'docs', tool: 'get' },
  readOnly: true,
};
const MCP_WRITE: AnyToolDefinition = {
  ...MCP_READ,
  schema: { ...MCP_READ.schema, name: 'mcp__docs__put' },
  readOnly: false,
};

describe('subagents: what a subagent may use, its settings and its config', () => {
  it('gets the read-only tools (and read-only MCP tools); edits and commands only when allowed; never task or update_plan', () => {
    const names = (allow: boolean) =>
      [...DEFS.values(), MCP_READ, MCP_WRITE].filter((d) => subagentMayUse(d, allow)).map((d) => d.schema.name);
    assert.deepEqual(names(false), ['read_file', 'list_files', 'search', 'recall', 'mcp__docs__get']);
    assert.deepEqual(names(true), [
      'read_file',
      'list_files',
      'search',
      'edit_file',
      'run_command',
      'recall',
      'mcp__docs__get',
      'mcp__docs__put',
    ]);
  });

  it('brings raw settings within bounds, and runs on the summariser model in a 64k window by default', () => {
    assert.deepEqual(subagentSettingsOf({}), DEFAULT_SUBAGENT_SETTINGS);
    const s = subagentSettingsOf({
      maxRounds: 0,
      maxConcurrent: 99.7,
      contextWindow: 'big',
      model: '  m  ',
      allowEdits: 'yes',
    });
    assert.deepEqual(
      {
        maxRounds: s.maxRounds,
        maxConcurrent: s.maxConcurrent,
        contextWindow: s.contextWindow,
        model: s.model,
        allowEdits: s.allowEdits,
      },
      { maxRounds: 1, maxConcurrent: 8, contextWindow: 64_000, model: 'm', allowEdits: false },
    );
    const parent = testConfig({ model: 'claude-opus-4-6', cacheTtl: '1h', thinking: 'high' });
    const c = subagentConfig(parent, DEFAULT_SUBAGENT_SETTINGS);
    assert.ok(c.ok);
    assert.equal(c.config.model, parent.summarizerModel);
    assert.equal(c.config.contextWindow, 64_000);
    assert.equal(c.config.cacheTtl, '5m');
    assert.equal(c.config.thinking, undefined);
    const main = subagentConfig(parent, {
      ...DEFAULT_SUBAGENT_SETTINGS,
      model: 'claude-opus-4-6',
      contextWindow: 5_000_000,
    });
    assert.ok(main.ok);
    assert.equal(main.config.model, 'claude-opus-4-6');
    assert.ok(main.config.contextWindow <= 2_000_000);
  });

  it('names a task call by its description on the chat row', () => {
    assert.equal(
      callSummary(DEFS.get('task'), 'task', { description: 'Find the store', prompt: 'Where is it saved?' }),
      'Subagent: Find the store',
    );
  });

  it('checks the task input, each refusal naming the fix', () => {
    const v = (input: unknown) => TASK_SPEC.validate(input);
    assert.deepEqual(v({ description: ' Find\n it ', prompt: 'p' }), {
      ok: true,
      input: { description: 'Find it', prompt: 'p' },
    });
    for (const [input, words] of [
      [null, /JSON object/],
      [{ description: 'd', prompt: 'p', extra: 1 }, /unknown parameter "extra"/],
      [{ description: '', prompt: 'p' }, /"description" must be/],
      [{ description: 'd', prompt: '  ' }, /"prompt" must be/],
      [{ description: 'd'.repeat(200), prompt: 'p' }, /keep it under 120/],
      [{ description: 'd', prompt: 'p'.repeat(20_001) }, /over 20000/],
    ] as const) {
      const r = v(input);
      assert.ok(!r.ok);
      assert.match(r.error, words);
    }
  });
});

describe('the host launcher: a child session of its own', () => {
  it('opens a child session file under the parent, runs on its own model, window and tools, and saves its transcript', async () => {
    const files = await fsp.mkdtemp(join(tmpdir(), 'cp-sa-files-'));
    try {
      await withStorePort('cp-sa-launch-', 1_700_000_000_000, async (port, clock) => {
        const parentOpen = await port.create('claude-sonnet-4-6');
        clock.advance(1000);
        const settings = new FakeSettings();
        const allowEdits = { value: false };
        const llm = new ScriptedLlm([
          {
            content: [
              { type: 'tool_use', id: 'toolu_e', name: 'edit_file', input: { path: 'a.ts', old: 'a', new: 'b' } },
            ],
          },
          { content: [{ type: 'tool_use', id: 'toolu_t', name: 'task', input: { description: 'x', prompt: 'y' } }] },
          { content: [{ type: 'text', text: 'Report: the store is in store.ts.' }] },
        ]);
        const schemas: ToolSchema[] = SPECS.map((s) => ({ ...s.schema, effect: s.effect }));
        const parentSystem = [agentSystemPrompt({ clock, ids: counterIds('ps') })];
        const launcher = subagentLauncher({
          parentId: parentOpen.id,
          parent: () => ({ system: parentSystem, tools: [], messages: [], pending: [], config: testConfig() }),
          sessions: port,
          settings,
          subagentSettings: () => ({ ...DEFAULT_SUBAGENT_SETTINGS, allowEdits: allowEdits.value }),
          llm,
          tokenizer: countingTokenizer(),
          clock: fakeClock(),
          tools: new FakeTools({ edit_file: 'edited' }),
          toolSchemas: () => schemas,
          toolDefinition: (name) => DEFS.get(name),
          filesDirectory: files,
          writeFile: (path, content) => fsp.writeFile(path, content),
        });
        const opened = await launcher.open(
          { toolUseId: 'toolu_1', description: 'Find the store', prompt: 'Where?' },
          () => undefined,
        );
        assert.ok(opened.ok);
        const child = opened.child;
        assert.equal(child.model, 'claude-haiku-4-5');
        assert.deepEqual(await child.send('Where is the store?'), { ok: true });
        const first = llm.requests[0];
        assert.ok(first);
        assert.equal(first.model, 'claude-haiku-4-5');
        assert.deepEqual(
          first.tools?.map((t) => ('name' in t ? t.name : '')),
          ['read_file', 'list_files', 'search', 'recall'],
        );
        const system = JSON.stringify(first.system);
        assert.ok(
          system.includes(JSON.stringify(parentSystem[0]?.text).slice(1, 40)),
          'the parent system prompt comes first',
        );
        assert.ok(system.includes(JSON.stringify(SUBAGENT_PROMPT).slice(1, 60)), 'then the subagent block');
        const results = JSON.stringify(llm.requests[1]?.messages);
        assert.match(results, /edit_file: not available to a subagent/);
        assert.ok(JSON.stringify(llm.requests[2]?.messages).includes(JSON.stringify(NESTED_TASK_REFUSED).slice(1, 50)));
        assert.equal(await child.close(), undefined);
        const transcript = await fsp.readFile(join(files, 'subagent-toolu_1.md'), 'utf8');
        assert.match(transcript, /^# Subagent: Find the store/);
        assert.match(transcript, /Report: the store is in store\.ts\./);
        const md = await port.transcript(child.sessionId);
        assert.ok(md.ok && md.text === transcript);

        allowEdits.value = true;
        const edits = new ScriptedLlm([{ content: [{ type: 'text', text: 'ok' }] }]);
        const again = subagentLauncher({
          parentId: parentOpen.id,
          parent: () => ({ system: [], tools: [], messages: [], pending: [], config: testConfig() }),
          sessions: port,
          settings,
          subagentSettings: () => ({ ...DEFAULT_SUBAGENT_SETTINGS, allowEdits: true }),
          llm: edits,
          tokenizer: countingTokenizer(),
          clock: fakeClock(),
          tools: new FakeTools({}),
          toolSchemas: () => schemas,
          toolDefinition: (name) => DEFS.get(name),
          filesDirectory: files,
          writeFile: (path, content) => fsp.writeFile(path, content),
        });
        clock.advance(1000);
        const o2 = await again.open({ toolUseId: 'toolu_2', description: 'Edit', prompt: 'p' }, () => undefined);
        assert.ok(o2.ok);
        await o2.child.send('go');
        assert.deepEqual(
          edits.requests[0]?.tools?.map((t) => ('name' in t ? t.name : '')),
          ['read_file', 'list_files', 'search', 'edit_file', 'run_command', 'recall'],
        );
        await o2.child.close();
        await parentOpen.close();
      });
    } finally {
      await fsp.rm(files, { recursive: true, force: true });
    }
  });
});
