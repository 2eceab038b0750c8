/**
 * What every workspace tool implementation receives besides its input. Plain Node: nothing
 * here (or in the tools) imports 'vscode', so the tools run under plain mocha.
 */
import type { ToolLimits } from '../../core/tools/limits';

export { stoppedMessage } from '../../core/tools/toolRegistry';

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
  /**
   * Starts run_command's timeout: calls `fire` after `ms` and returns a function that cancels
   * it. Default: a real timer. Tests pass one they fire themselves, so a busy machine cannot
   * make a command time out before it did what the test waits for.
   */
  readonly startTimeout?: (ms: number, fire: () => void) => () => void;
}

/** run_command's timeout on a real timer (the default of `ToolContext.startTimeout`). */
export function realTimeout(ms: number, fire: () => void): () => void {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
}
