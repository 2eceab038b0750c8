/**
 * The built-in tools as ToolDefinitions: each contract of src/core/tools/builtin bound to its
 * executor here (Node fs and child_process). Adding a built-in tool: its contract in
 * src/core/tools/builtin/, its executor in this folder, one line in BUILTIN_TOOLS below.
 */
import { EDIT_FILE_SPEC } from '../../core/tools/builtin/editFileSpec';
import { LIST_FILES_SPEC } from '../../core/tools/builtin/listFilesSpec';
import { READ_FILE_SPEC } from '../../core/tools/builtin/readFileSpec';
import { RUN_COMMAND_SPEC } from '../../core/tools/builtin/runCommandSpec';
import { SEARCH_SPEC } from '../../core/tools/builtin/searchSpec';
import type { ToolLimits } from '../../core/tools/limits';
import { RECALL_SPEC } from '../../core/recall/recallSpec';
import { UPDATE_PLAN_SPEC } from '../../core/plan/planSpec';
import { TASK_SPEC } from '../../core/subagents/taskSpec';
import { toolError, type ToolResult } from '../../core/tools/result';
import {
  bindTool,
  type AnyToolDefinition,
  type ToolExecution,
  type ToolRunContext,
  type ToolSpec,
} from '../../core/tools/toolDefinition';
import type { Approver } from '../approvals/approval';
import { editFileTool } from './editFile';
import { listFilesTool } from './listFiles';
import { readFileTool } from './readFile';
import { runCommandTool } from './runCommand';
import { searchTool } from './search';
import type { ToolContext } from './toolContext';
import type { FilesExclude } from './workspaceFilter';

/** What the built-in executors need from the host; functions are read on every call. */
export interface BuiltinToolDeps {
  /** Workspace folder paths, first = default. */
  readonly roots: () => readonly string[];
  /** The session's files folders (read-only, by absolute path). */
  readonly readOnlyRoots: () => readonly string[];
  readonly approver: Approver;
  /** The `contextPipeline.enableRunCommand` setting: run_command is offered (and runs) only when true. */
  readonly runCommandEnabled: () => boolean;
  /** The `contextPipeline.subagents.enabled` setting: task is offered only when true. */
  readonly subagentsEnabled: () => boolean;
  /** Secrets in use (the API key): stripped from run_command's environment. */
  readonly secrets: () => readonly string[];
  /** The workspace's `files.exclude` setting. */
  readonly filesExclude: () => FilesExclude;
  readonly limits: ToolLimits;
}

/**
 * The built-in tools in the order they are offered: the workspace tools, then recall (always
 * offered, so the tool list — the start of the cached prompt — does not change when the first
 * compaction happens), update_plan and task (while subagents are on). All are session state —
 * recall runs on the session's compactions, update_plan changes its plan, task opens child
 * sessions: the session binds them (`withSessionTools`), so the definitions here only answer
 * a call made outside a session.
 */
export function builtinTools(deps: BuiltinToolDeps): readonly AnyToolDefinition[] {
  const workspace = <I>(
    spec: ToolSpec<I>,
    run: (input: I, ctx: ToolContext, approver: Approver) => Promise<ToolResult>,
  ) =>
    bindTool(spec, (input, call) =>
      inWorkspace(deps, call, spec.schema.name, (ctx) => run(input, ctx, timedApprover(deps.approver, call))),
    );
  return [
    workspace(READ_FILE_SPEC, readFileTool),
    workspace(LIST_FILES_SPEC, (input, ctx) => listFilesTool(input, ctx, deps.filesExclude())),
    workspace(SEARCH_SPEC, (input, ctx) => searchTool(input, ctx, deps.filesExclude())),
    workspace(EDIT_FILE_SPEC, editFileTool),
    {
      ...workspace(RUN_COMMAND_SPEC, (input, ctx, approver) =>
        runCommandTool(input, ctx, deps.runCommandEnabled(), approver, deps.secrets()),
      ),
      offered: deps.runCommandEnabled,
    },
    bindTool(RECALL_SPEC, async () =>
      asExecution(toolError("recall: it reads a session's compacted history, and no session is open.")),
    ),
    bindTool(UPDATE_PLAN_SPEC, async () =>
      asExecution(toolError("update_plan: it keeps a session's plan, and no session is open.")),
    ),
    {
      ...bindTool(TASK_SPEC, async () =>
        asExecution(toolError('task: subagents run from a session, and no session is open.')),
      ),
      offered: deps.subagentsEnabled,
    },
  ];
}

/**
 * `approver` with each wait for the user's answer passed through the call's `askUser`, so the
 * chat shows the call awaiting approval meanwhile and its duration leaves the wait out.
 */
function timedApprover(approver: Approver, call: ToolRunContext): Approver {
  const askUser = call.askUser;
  if (!askUser) return approver;
  return {
    approveEdit: (proposal, signal) => askUser(() => approver.approveEdit(proposal, signal)),
    approveCommand: (proposal, signal) => askUser(() => approver.approveCommand(proposal, signal)),
  };
}

async function inWorkspace(
  deps: BuiltinToolDeps,
  call: ToolRunContext,
  name: string,
  run: (ctx: ToolContext) => Promise<ToolResult>,
): Promise<ToolExecution> {
  const roots = deps.roots();
  if (roots.length === 0)
    return asExecution(
      toolError(
        `${name}: no folder is open in VS Code, so there is no workspace to work in. Ask the user to open a folder.`,
      ),
    );
  const ctx: ToolContext = { roots, sessionRoots: deps.readOnlyRoots(), signal: call.signal, limits: deps.limits };
  return asExecution(await run(ctx));
}

function asExecution(r: ToolResult): ToolExecution {
  return { content: r.text, isError: r.isError };
}
