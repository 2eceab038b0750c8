/**
 * Subagents under test without the host: a launcher whose children are real AgentSessions
 * (the same turn loop), each on its own scripted model and fake tools, wrapped in the child
 * tool filter as the host wraps them. Records what it opened and closed.
 */
import { AgentSession } from '../../../src/core/agent/agentSession';
import type { AgentEvent } from '../../../src/core/agent/events';
import type { ToolCall, ToolRunner } from '../../../src/core/tools/toolRunner';
import type { ConversationState, ToolSchema } from '../../../src/core/conversation/conversationModel';
import { counterIds } from '../../../src/core/platform/platformPorts';
import { subagentToolRunner } from '../../../src/core/subagents/childTools';
import type { SubagentLauncher, SubagentTask } from '../../../src/core/agent/subagentPort';
import { subagentSystem } from '../../../src/core/subagents/subagentPrompt';
import { DEFAULT_SUBAGENT_SETTINGS, type SubagentSettings } from '../../../src/core/subagents/subagentSettings';
import { agentDeps } from './agentDeps';
import { testConfig } from './builders';
import type { ScriptedLlm } from './scriptedLlm';

/** The tools a child is offered in these tests. */
export const CHILD_TOOLS: readonly ToolSchema[] = [
  { name: 'read_file', description: 'Read a file', inputSchema: { type: 'object' }, effect: 'read' },
  { name: 'search', description: 'Search', inputSchema: { type: 'object' }, effect: 'search' },
];

/** One child's script: its model and tools. */
export interface ChildScript {
  readonly llm: ScriptedLlm;
  readonly tools: ToolRunner;
}

/** A launcher over scripted children, in the order the tasks are opened. */
export class TestLauncher implements SubagentLauncher {
  readonly opened: SubagentTask[] = [];
  readonly closed: string[] = [];
  readonly children: AgentSession[] = [];
  settingsValue: SubagentSettings = { ...DEFAULT_SUBAGENT_SETTINGS, maxRounds: 4 };
  /** When set, `open` fails with this sentence. */
  failOpen: string | undefined;
  private count = 0;

  constructor(
    private readonly scripts: ChildScript[],
    private readonly parentSystem: () => ConversationState['system'] = () => [],
  ) {}

  settings = () => this.settingsValue;
  describe = (call: ToolCall) => `${call.name} ${JSON.stringify(call.input)}`;

  async open(task: SubagentTask, onEvent: (e: AgentEvent) => void) {
    if (this.failOpen) return { ok: false as const, error: this.failOpen };
    const script = this.scripts.shift();
    if (!script) throw new Error('no child script left');
    this.opened.push(task);
    const id = `child-${++this.count}`;
    const ids = counterIds(id);
    const clock = { now: () => 1_700_000_000_000 };
    const allowed = new Set(CHILD_TOOLS.map((t) => t.name));
    const agent = new AgentSession(
      {
        system: subagentSystem(this.parentSystem(), { clock, ids }),
        tools: CHILD_TOOLS,
        messages: [],
        pending: [],
        config: testConfig({ model: 'claude-haiku-4-5', contextWindow: 64_000 }),
      },
      agentDeps({
        llm: script.llm,
        tools: subagentToolRunner(script.tools, () => allowed),
        ids,
        clock,
        maxToolRounds: this.settingsValue.maxRounds,
      }),
      onEvent,
    );
    this.children.push(agent);
    return {
      ok: true as const,
      child: {
        sessionId: id,
        model: 'claude-haiku-4-5',
        send: (prompt: string) => agent.send(prompt),
        stop: () => agent.stop(),
        messages: () => agent.state.messages,
        close: async () => {
          this.closed.push(id);
          return undefined;
        },
      },
    };
  }
}
