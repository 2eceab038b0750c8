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
