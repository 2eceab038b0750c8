import { formatBytes, headChars, lineCount, safeCutIndex, utf8Length } from '../platform/text';

/** A file the caller must write before the message that references it is sent. */
export interface Spill {
  /** Absolute path chosen from the directory the caller gave. */
  readonly path: string;
  readonly content: string;
}

/** Outcome of planning a user's input: the text to send, and any file to write. */
export interface PastePlan {
  readonly text: string;
  readonly spill?: Spill;
}

/** The paste threshold by default, in characters. */
export const DEFAULT_PASTE_THRESHOLD_CHARS = 100_000;

/** How many characters of a spilled paste are shown inline: its head and its tail. */
export const PASTE_PREVIEW_HEAD_CHARS = 1_000;
export const PASTE_PREVIEW_TAIL_CHARS = 500;

/**
 * Decides whether the user's input is small enough to send inline. Over `thresholdChars`,
 * the whole input is to be saved at `directory/fileName` and replaced by a reference that
 * names the file, its size and line count, and shows its head and tail (where a question
 * around a pasted log usually is), so nothing is lost
 * and the model can read the rest with its file tool. Pure: the caller writes the file.
 */
export function planPaste(
  text: string,
  opts: { thresholdChars: number; directory: string; fileName: string },
): PastePlan {
  if (text.length <= opts.thresholdChars) return { text };
  const path = `${opts.directory.replace(/[\\/]+$/, '')}/${opts.fileName}`;
  const head = headChars(text, PASTE_PREVIEW_HEAD_CHARS);
  const tail = text.slice(safeCutIndex(text, Math.max(head.length, text.length - PASTE_PREVIEW_TAIL_CHARS)));
  const reference =
    `[The user pasted ${text.length.toLocaleString('en-US')} characters (${formatBytes(utf8Length(text))}, ${lineCount(text).toLocaleString('en-US')} lines). ` +
    `It was saved to ${path} because it is too large to send inline; read that file for the full content.]\n` +
    `Beginning of the paste:\n${head}\n[…]\nEnd of the paste:\n${tail}`;
  return { text: reference, spill: { path, content: text } };
}
