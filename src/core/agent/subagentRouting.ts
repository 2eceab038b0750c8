/**
 * The session's side of its subagents (task): their figures go to the views as they change,
 * and each one's record, when it ends, is saved to the session file (the parent's bill) and
 * then announced. A record that cannot be saved is still announced (its cost is shown for
 * this window) with the reason; the subagent's own session file holds its requests either way.
 */
import type { SessionCore } from './sessionCore';
import type { SubagentLauncher } from './subagentPort';
import { taskDefinition } from './taskTool';
import type { ToolDefinition } from '../tools/toolDefinition';
import type { TaskInput } from '../subagents/taskSpec';
import { errorText } from '../text/errors';

/** task bound to `core`'s session, running subagents through `launcher`. */
export function sessionTaskTool(core: SessionCore, launcher: SubagentLauncher): ToolDefinition<TaskInput> {
  const engine = core.deps.engine;
  const warn = (text: string | undefined) => {
    if (text) core.emit({ type: 'notice', level: 'warning', text });
  };
  // The context engine hears of each subagent (advisory: its failures are said, nothing stops).
  const told: SubagentLauncher = engine
    ? {
        describe: (call) => launcher.describe(call),
        settings: () => launcher.settings(),
        open: async (task, onEvent) => {
          warn(await engine.subagentSpawning(task, new AbortController().signal));
          return launcher.open(task, onEvent);
        },
      }
    : launcher;
  return taskDefinition({
    launcher: told,
    clock: core.deps.clock,
    progress: (toolUseId, figures) => core.emit({ type: 'subagent_progress', toolUseId, figures }),
    finished: async (record) => {
      let notSaved: string | undefined;
      try {
        await core.deps.sink.subagent?.(record);
      } catch (err) {
        notSaved = `The subagent's cost could not be saved to the session file (${errorText(err)}); it is counted until the window closes, and its own session file holds its requests.`;
      }
      core.emit({ type: 'subagent_finished', record, ...(notSaved ? { notSaved } : {}) });
      if (engine) warn(await engine.subagentEnded(record, new AbortController().signal));
    },
  });
}
