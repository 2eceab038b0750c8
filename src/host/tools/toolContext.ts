/**
 * What every workspace tool implementation receives besides its input. Plain Node: nothing
 * here (or in the tools) imports 'vscode', so the tools run under plain mocha.
 */
import type { ToolLimits } from '../../core/tools/limits';

/** The environment of one tool call. */
export interface ToolContext {
  /** Workspace folders, as VS Code lists them; the first one is the default. Not empty. */
  readonly roots: readonly string[];
  /**
   * The session's files folders (saved pastes, spilled tool results): readable by absolute
   * path only, never written, never counted as workspace folders (see paths.ts).
   */
  readonly sessionRoots?: readonly string[];
  /** Aborted when the user presses Stop; every tool checks it and returns early. */
  readonly signal: AbortSignal;
  readonly limits: ToolLimits;
  /**
   * Test seam, unset in the extension: awaited after read_file resolved its path and before
   * it opens the file, so tests can swap a folder for a link in exactly that window.
   */
  readonly beforeOpen?: () => Promise<void>;
}

/** The result text when a call was stopped by the user. */
export function stoppedMessage(tool: string): string {
  return `${tool}: stopped by the user before it finished.`;
}
