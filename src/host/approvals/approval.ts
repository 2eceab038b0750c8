/**
 * The user's consent to the agent's side effects. Tools ask an Approver before they write a
 * file or run a command; the VS Code implementation shows a diff or the command in a modal.
 */
import type { ApprovalDecision } from '../../core/tools/approvalWords';

export { declinedMessage, type ApprovalDecision } from '../../core/tools/approvalWords';

/** An edit waiting for approval. */
export interface EditProposal {
  /** Real absolute path of the file. */
  readonly path: string;
  /** The path as tools show it (relative to the workspace). */
  readonly displayPath: string;
  /** Current content ('' for a file that does not exist yet). */
  readonly before: string;
  /** Content after the edit. */
  readonly after: string;
  readonly isNewFile: boolean;
}

/** A shell command waiting for approval. */
export interface CommandProposal {
  readonly command: string;
  /** Real absolute path of the folder it runs in. */
  readonly cwd: string;
  /** The folder as tools show it (relative to the workspace). */
  readonly displayCwd: string;
  /** The name of the workspace folder it runs in (the card says it rather than `.`). */
  readonly rootName?: string;
}

/** A call of an MCP server's tool waiting for approval. */
export interface ToolCallProposal {
  /** The configured server name. */
  readonly server: string;
  /** The server's own name of the tool. */
  readonly tool: string;
  /** The tool's name as the model calls it (`mcp__server__tool`). */
  readonly name: string;
  /** The tool's description, untrusted (our tags neutralised). */
  readonly description: string;
  /** The checked input. */
  readonly input: unknown;
  /** The server says the tool only reads (`readOnlyHint`). */
  readonly readOnly: boolean;
}

/**
 * Asks the user. Implementations resolve (never reject) once the user has answered; a
 * dismissed prompt is a refusal. `signal` is aborted when the user pressed Stop meanwhile:
 * an implementation may then resolve early with a refusal.
 */
export interface Approver {
  approveEdit(proposal: EditProposal, signal: AbortSignal): Promise<ApprovalDecision>;
  approveCommand(proposal: CommandProposal, signal: AbortSignal): Promise<ApprovalDecision>;
}
