import { strict as assert } from 'node:assert';
import { RECALL_SPEC } from '../../src/core/recall/recallSpec';
import { EDIT_FILE_SPEC } from '../../src/core/tools/builtin/editFileSpec';
import { LIST_FILES_SPEC } from '../../src/core/tools/builtin/listFilesSpec';
import { READ_FILE_SPEC } from '../../src/core/tools/builtin/readFileSpec';
import { RUN_COMMAND_SPEC } from '../../src/core/tools/builtin/runCommandSpec';
import { SEARCH_SPEC } from '../../src/core/tools/builtin/searchSpec';
import type { InputCheck, ToolSpec } from '../../src/core/tools/toolDefinition';
import { WorkspaceToolRunner } from '../../src/host/tools/workspaceToolRunner';
import { ScriptedApprover } from './support/toolsWorkspace';

const SPECS: readonly ToolSpec[] = [
  READ_FILE_SPEC,
  LIST_FILES_SPEC,
  SEARCH_SPEC,
  EDIT_FILE_SPEC,
  RUN_COMMAND_SPEC,
] as readonly ToolSpec[];
const WORKSPACE_TOOLS = SPECS.map((s) => s.schema);
const RECALL_TOOL = RECALL_SPEC.schema;
const validateRecallInput = (input: unknown) => RECALL_SPEC.validate(input);

/** The input check of the built-in `name`, with the call tagged by name as before. */
function validateToolInput(name: string, input: unknown) {
  const spec = SPECS.find((s) => s.schema.name === name);
  if (!spec) throw new Error(`no built-in ${name}`);
  const r = spec.validate(input);
  return r.ok ? { ok: true as const, call: { name, input: r.input } } : r;
}

function error(r: InputCheck<unknown> | ReturnType<typeof validateToolInput>): string {
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r)}`);
  return r.error;
}

/** The schemas the host offers with run_command on or off. */
function selectEnabledTools(settings: { runCommandEnabled: boolean }) {
  return runners[settings.runCommandEnabled ? 'on' : 'off'].schemas();
}
const runner = (on: boolean) =>
  new WorkspaceToolRunner({
    roots: [],
    approver: new ScriptedApprover(),
    runCommandEnabled: () => on,
    filesExclude: () => ({}),
  });
const runners = { on: runner(true), off: runner(false) };

describe('tools: schemas and input validation', () => {
  it('offers the five workspace tools, recall and update_plan, run_command only when enabled, as stable objects', () => {
    assert.deepEqual(
      WORKSPACE_TOOLS.map((t) => t.name),
      ['read_file', 'list_files', 'search', 'edit_file', 'run_command'],
    );
    assert.deepEqual(
      selectEnabledTools({ runCommandEnabled: false }).map((t) => t.name),
      ['read_file', 'list_files', 'search', 'edit_file', 'recall', 'update_plan'],
    );
    assert.deepEqual(
      selectEnabledTools({ runCommandEnabled: true }).map((t) => t.name),
      ['read_file', 'list_files', 'search', 'edit_file', 'run_command', 'recall', 'update_plan'],
    );
    assert.equal(selectEnabledTools({ runCommandEnabled: true }), selectEnabledTools({ runCommandEnabled: true }));
    assert.equal(selectEnabledTools({ runCommandEnabled: false }), selectEnabledTools({ runCommandEnabled: false }));
    assert.equal(selectEnabledTools({ runCommandEnabled: true }).at(-2)?.description, RECALL_TOOL.description);
    assert.deepEqual(
      selectEnabledTools({ runCommandEnabled: true }).map((t) => t.effect),
      ['read', 'list', 'search', 'edit', 'run', 'recall', 'plan'],
    );
  });

  it('describes recall, and its validator accepts exactly the advertised parameters', () => {
    assert.ok(RECALL_TOOL.description.length > 400);
    assert.match(RECALL_TOOL.description, /conversation_summary/);
    assert.match(RECALL_TOOL.description, /2,000 lines/);
    const props = Object.keys(RECALL_TOOL.inputSchema['properties'] as object);
    const r = validateRecallInput({ zz: 1 });
    assert.ok(!r.ok);
    const listed = /Accepted parameters: (.*)\.$/.exec(r.error)?.[1]?.split(', ') ?? [];
    assert.deepEqual(listed, props);
    assert.deepEqual(validateRecallInput({ query: '  parseConfig ', limit: null }), {
      ok: true,
      input: { query: 'parseConfig' },
    });
    const bad = validateRecallInput({ turn: 0 });
    assert.equal(bad.ok ? '' : bad.error, 'recall: "turn" must be an integer ≥ 1 (got 0).');
  });

  it('describes each tool with its limits, and every schema property is validated', () => {
    for (const tool of WORKSPACE_TOOLS) {
      assert.ok(tool.description.length > 200, tool.name);
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.inputSchema['additionalProperties'], false);
      const props = Object.keys(tool.inputSchema['properties'] as object);
      const required = (tool.inputSchema['required'] as string[] | undefined) ?? [];
      // The validator accepts exactly the advertised parameters, with the same required ones.
      const listed =
        /Accepted parameters: (.*)\.$/.exec(error(validateToolInput(tool.name, { zz: 1 })))?.[1]?.split(', ') ?? [];
      assert.deepEqual(
        listed.map((p) => p.replace(' (required)', '')),
        props,
        tool.name,
      );
      assert.deepEqual(
        listed.filter((p) => p.endsWith(' (required)')).map((p) => p.replace(' (required)', '')),
        required,
        tool.name,
      );
    }
    assert.match(WORKSPACE_TOOLS[0]?.description ?? '', /2,000 lines/);
    assert.match(WORKSPACE_TOOLS[4]?.description ?? '', /30,000 characters/);
  });

  it('accepts valid inputs and returns them typed', () => {
    const r = validateToolInput('read_file', { path: 'a.ts', offset: 3, limit: null });
    assert.deepEqual(r, { ok: true, call: { name: 'read_file', input: { path: 'a.ts', offset: 3 } } });
    assert.ok(validateToolInput('edit_file', { path: 'a', old_string: '', new_string: 'x' }).ok);
    assert.ok(validateToolInput('list_files', {}).ok);
    assert.deepEqual(validateToolInput('run_command', { command: '  ls  ' }), {
      ok: true,
      call: { name: 'run_command', input: { command: 'ls' } },
    });
  });

  it('explains missing, mistyped and unknown parameters', () => {
    assert.equal(error(validateToolInput('read_file', {})), 'read_file: "path" is required (a non-empty string).');
    assert.equal(
      error(validateToolInput('read_file', { path: 'a', offset: 0 })),
      'read_file: "offset" must be an integer ≥ 1 (got 0).',
    );
    assert.equal(
      error(validateToolInput('read_file', { path: 'a', offset: '10' })),
      'read_file: "offset" must be an integer ≥ 1 (got "10").',
    );
    assert.equal(
      error(validateToolInput('read_file', { file_path: 'a' })),
      'read_file: unknown parameter "file_path" (did you mean "path"?). Accepted parameters: path (required), offset, limit, column.',
    );
    assert.equal(
      error(validateToolInput('edit_file', { path: 'a', old_string: 'x' })),
      'edit_file: "new_string" is required (a string).',
    );
    assert.equal(
      error(validateToolInput('search', { pattern: '' })),
      'search: "pattern" must be a non-empty string (got "").',
    );
    assert.match(
      error(validateToolInput('search', { pattern: 'x', max_results: 500 })),
      /"max_results" must be an integer from 1 to 200/,
    );
    assert.match(error(validateToolInput('run_command', { command: '   ' })), /"command" must be a non-empty string/);
    assert.match(
      error(validateToolInput('run_command', { command: 'ls', timeout_ms: 10 })),
      /"timeout_ms" must be an integer from 1,000 to 600,000/,
    );
    assert.match(
      error(validateToolInput('read_file', 'a.ts')),
      /^read_file: the input must be a JSON object with the parameters path \(required\), offset, limit, column \(got "a\.ts"\)\.$/,
    );
    assert.match(error(validateToolInput('read_file', [1])), /must be a JSON object/);
    assert.match(
      error(validateToolInput('read_file', { path: 'x'.repeat(10), offset: 'y'.repeat(200) })),
      /\(got "y{50,}…\)\.$/,
    );
  });

  it('names the tools when the tool is unknown', async () => {
    const out = await runners.off.run({ id: 't', name: 'write_file', input: {} }, new AbortController().signal);
    assert.equal(out.isError, true);
    assert.equal(
      out.content,
      'Unknown tool "write_file". The tools are: read_file, list_files, search, edit_file, recall, update_plan.',
    );
  });
});
