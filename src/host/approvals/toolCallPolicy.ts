/**
 * Whether an MCP tool's call may run without asking, and the CallApprover the registry uses
 * for tools that ask: the user's "always allow" list (`contextPipeline.mcp.alwaysAllow`, user
 * settings only: `server` or `server/tool`) and, when the user turned it on
 * (`contextPipeline.mcp.autoApproveReadOnly`), tools the server marks `readOnlyHint`; anything
 * else is an approval card in the chat, whose "Always allow …" adds to the list. Plain Node.
 */
import type { CallApprover } from '../../core/tools/toolRegistry';
import type { ApprovalDecision, ToolCallProposal } from './approval';

/** The user's settings this policy reads (application scope: a workspace cannot set them). */
export interface ToolCallSettings {
  /** `server` (every tool of it) or `server/tool`. */
  readonly alwaysAllow: readonly string[];
  readonly autoApproveReadOnly: boolean;
}

/** What the policy needs from the host. */
export interface ToolCallPolicyDeps {
  readonly settings: () => ToolCallSettings;
  /** Shows the approval card and waits for the answer. */
  readonly ask: (proposal: ToolCallProposal, signal: AbortSignal) => Promise<ApprovalDecision>;
  /** Adds an entry to the user's always-allow list (user settings). A failure is logged, the call still runs. */
  readonly remember: (entry: string) => Promise<void>;
  readonly log: (text: string) => void;
}

/** Why a call runs without asking, or undefined when the user must be asked. */
export function allowedWithoutAsking(
  p: Pick<ToolCallProposal, 'server' | 'tool' | 'readOnly'>,
  s: ToolCallSettings,
): string | undefined {
  if (s.alwaysAllow.includes(p.server)) return `every tool of ${p.server} is always allowed`;
  if (s.alwaysAllow.includes(`${p.server}/${p.tool}`)) return `${p.server}/${p.tool} is always allowed`;
  if (s.autoApproveReadOnly && p.readOnly)
    return `${p.tool} is marked read-only and read-only tools run without asking`;
  return undefined;
}

/** The registry's CallApprover for MCP tools. A tool of another origin is asked about like any call. */
export function toolCallApprover(deps: ToolCallPolicyDeps): CallApprover {
  return async ({ definition, input }, signal) => {
    const origin = definition.origin;
    const proposal: ToolCallProposal = {
      server: origin.kind === 'mcp' ? origin.server : '(built-in)',
      tool: origin.kind === 'mcp' ? origin.tool : definition.schema.name,
      name: definition.schema.name,
      description: definition.schema.description,
      input,
      readOnly: definition.readOnly,
    };
    const why = allowedWithoutAsking(proposal, deps.settings());
    if (why) {
      deps.log(`${proposal.name} ran without asking: ${why}.`);
      return { approved: true };
    }
    const decision = await deps.ask(proposal, signal);
    if (decision.approved && decision.remember) {
      const entry = decision.remember === 'server' ? proposal.server : `${proposal.server}/${proposal.tool}`;
      await deps
        .remember(entry)
        .catch((e: unknown) =>
          deps.log(
            `Could not save "always allow ${entry}" to the user settings: ${e instanceof Error ? e.message : String(e)}`,
          ),
        );
    }
    return decision;
  };
}
