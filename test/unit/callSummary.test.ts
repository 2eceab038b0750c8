/**
 * The one line a tool row shows (core/tools/callSummary.ts): each built-in from its
 * definition, an MCP tool as its tool, server and main argument, a foreign tool from its name
 * and most telling input; always one line, clipped.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { EDIT_FILE_SPEC, changedLines } from '../../src/core/tools/builtin/editFileSpec';
import { LIST_FILES_SPEC } from '../../src/core/tools/builtin/listFilesSpec';
import { READ_FILE_SPEC } from '../../src/core/tools/builtin/readFileSpec';
import { RUN_COMMAND_SPEC } from '../../src/core/tools/builtin/runCommandSpec';
import { SEARCH_SPEC } from '../../src/core/tools/builtin/searchSpec';
import { RECALL_SPEC } from '../../src/core/recall/recallSpec';
import { buildMcpTools } from '../../src/core/mcp/mcpToolDefinitions';
import { ajvCompiler } from '../../src/host/mcp/ajvCompiler';
import { SUMMARY_CHARS, SUMMARY_TARGET_CHARS, callSummary } from '../../src/core/tools/callSummary';
import { bindTool, type AnyToolDefinition, type ToolSpec } from '../../src/core/tools/toolDefinition';

const bound = <I>(spec: ToolSpec<I>): AnyToolDefinition =>
  bindTool(spec, async () => ({ content: 'ok', isError: false }));
const [read, list, search, edit, run, recall] = [
  READ_FILE_SPEC,
  LIST_FILES_SPEC,
  SEARCH_SPEC,
  EDIT_FILE_SPEC,
  RUN_COMMAND_SPEC,
  RECALL_SPEC,
].map((s) => bound(s as ToolSpec<unknown>));
const summary = (d: AnyToolDefinition | undefined, input: unknown) => callSummary(d, d?.schema.name ?? '?', input);

function echoTool(): AnyToolDefinition {
  const built = buildMcpTools({
    server: 'everything',
    tools: [
      {
        name: 'echo',
        description: 'Echoes the message.',
        inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
      },
    ],
    reserved: new Set(),
    compile: ajvCompiler,
    call: async () => ({ content: 'ok', isError: false }),
  });
  assert.ok(built.ok);
  const [echo] = built.definitions;
  assert.ok(echo);
  return echo;
}

describe('tool rows: the call summary', () => {
  it('says what each built-in acts on, from its definition', () => {
    assert.equal(summary(read, { path: 'src/auth.ts' }), 'Read src/auth.ts');
    assert.equal(summary(read, { path: 'src/auth.ts', offset: 10, limit: 5 }), 'Read src/auth.ts');
    assert.equal(summary(search, { pattern: 'exp', path: 'src/' }), 'Search "exp" in src/');
    assert.equal(summary(search, { pattern: 'exp' }), 'Search "exp"');
    assert.equal(summary(search, { pattern: 'exp', glob: '*.ts' }), 'Search "exp" in *.ts');
    assert.equal(summary(list, { path: 'src' }), 'List src');
    assert.equal(summary(list, {}), 'List the workspace');
    assert.equal(summary(run, { command: 'npm test' }), 'Run npm test');
    assert.equal(summary(recall, { query: 'validateToken' }), 'Recall "validateToken"');
  });

  it('gives an edit its +/− lines when the input tells them', () => {
    const two = { path: 'src/auth.ts', old_string: 'a\nb\nc\nd', new_string: 'a\nB\nC\nd' };
    assert.equal(summary(edit, two), 'Edit src/auth.ts +2 −2');
    assert.equal(summary(edit, { path: 'new.ts', old_string: '', new_string: 'x\ny\n' }), 'Edit new.ts +2 −0');
    // replace_all: the occurrences are only known when it runs, so no counts are claimed.
    assert.equal(summary(edit, { ...two, replace_all: true }), 'Edit src/auth.ts');
  });

  it('counts changed lines without the lines both sides share', () => {
    assert.deepEqual(changedLines('x\n', 'y\n'), { added: 1, removed: 1 });
    assert.deepEqual(changedLines('fn greet', 'fn bye() {}\nfn greet'), { added: 1, removed: 0 });
    assert.deepEqual(changedLines('a\nb\nc', 'a\nc'), { added: 0, removed: 1 });
    assert.deepEqual(changedLines('', 'one'), { added: 1, removed: 0 });
  });

  it('names an MCP tool by its own name, its server and its main argument', () => {
    const echo = echoTool();
    assert.equal(echo.schema.name, 'mcp__everything__echo');
    assert.equal(summary(echo, { message: 'hello' }), 'echo · everything "hello"');
  });

  it('names a call to a tool without a definition by its name and most telling input', () => {
    assert.equal(callSummary(undefined, 'Bash', { command: 'ls -la', description: 'list' }), 'Bash ls -la');
    assert.equal(callSummary(undefined, 'Read', { file_path: '/x/a.ts' }), 'Read /x/a.ts');
    assert.equal(callSummary(undefined, 'TodoWrite', { todos: [] }), 'TodoWrite');
    // A server no longer running: its tool and server read from the name.
    assert.equal(
      callSummary(undefined, 'mcp__github__search_issues', { query: 'bug' }),
      'search_issues · github "bug"',
    );
    // Input its definition refuses is not trusted as a target: named like a foreign call.
    assert.equal(summary(read, { file: 42 }), 'read_file');
  });

  it('keeps a long or multi-line input to one clipped line', () => {
    const script = `npm test \\\n  && ${'x'.repeat(300)}\n\techo done`;
    const line = summary(run, { command: script });
    assert.ok(!/[\n\r\t]/.test(line), line);
    assert.ok(line.startsWith('Run npm test \\ && xxx'), line);
    assert.ok(line.endsWith('…'));
    assert.equal(line.length, 'Run '.length + SUMMARY_TARGET_CHARS);
    const foreign = callSummary(undefined, 'shell', { command: `a\nb${'y'.repeat(500)}` });
    assert.ok(!foreign.includes('\n') && foreign.length <= SUMMARY_CHARS, foreign);
  });

  it('is one line of at most SUMMARY_CHARS characters for any input (property)', () => {
    const defs = [read, list, search, edit, run, recall, echoTool(), undefined];
    fc.assert(
      fc.property(
        fc.constantFrom(...defs),
        fc.string({ maxLength: 20 }),
        fc.dictionary(
          fc.constantFrom('path', 'pattern', 'command', 'query', 'message', 'old_string', 'new_string', 'x'),
          fc.oneof(fc.string({ maxLength: 400 }), fc.integer()),
        ),
        (def, name, input) => {
          const s = callSummary(def, def?.schema.name ?? name, input);
          return !/[\n\r]/.test(s) && s.length <= SUMMARY_CHARS;
        },
      ),
    );
  });
});
