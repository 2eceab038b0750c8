/**
 * Writes to the session file (the sink) and the session folder (spilled outputs) that fail
 * during a turn. Each is saved before memory changes, so a failed write leaves the
 * conversation as the file has it; the failure becomes a {@link SessionWriteError}, which the
 * turn loop turns into one `error` event (kind `session_file`) and ends the turn with.
 */
import type { LlmError } from '../llm/llmClient';

/** What to tell the user after a failed write: free space or fix the folder, then `then`. */
const FIX = 'Free some disk space or check that the session folder can be written';

/** A failed session write, with what was not kept and what that means, as the chat shows it. */
export class SessionWriteError extends Error {
  /** The chat's error: kind `session_file`, the sentence, whether Retry can ask again. */
  readonly error: LlmError;
  constructor(message: string, retryable: boolean) {
    super(message);
    this.name = 'SessionWriteError';
    this.error = { kind: 'session_file', retryable, message };
  }
}

/** The message of a thrown value. */
function causeText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The sentence for a session file that could not be written: the cause, what was not kept
 * (`lost`, e.g. "Claude's answer was not kept"), what stands now and what to do (`then`).
 */
export function sessionFileFailure(err: unknown, lost: string, then: string): string {
  return `The session file could not be written (${causeText(err)}), so ${lost}. ${FIX}, then ${then}.`;
}

/** The sentence for a file of the session folder (a spilled output or paste) that could not be written. */
export function sessionFolderFailure(err: unknown, what: string, lost: string, then: string): string {
  return `${what} could not be written to the session folder (${causeText(err)}), so ${lost}. ${FIX}, then ${then}.`;
}

/** What a turn stopped by a failed write of tool `results` (e.g. "the results of read_file") leaves, and what the next message does. */
export function resultsNotKept(results: string): string {
  return `${results} were not kept and the turn stopped. Claude's calls stand without their results (any tool that ran did its work); your next message answers them as interrupted`;
}

/** Runs `write`; a rejection becomes a {@link SessionWriteError} with `describe(cause)` and `retryable`. */
export async function saveOrStop(
  write: () => Promise<void>,
  describe: (err: unknown) => string,
  retryable = false,
): Promise<void> {
  try {
    await write();
  } catch (err) {
    throw new SessionWriteError(describe(err), retryable);
  }
}
