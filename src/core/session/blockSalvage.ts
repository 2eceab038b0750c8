/**
 * Block-level salvage for the session loader: a message line that does not decode because
 * one of its blocks cannot be read (a media type this version does not know, a field of the
 * wrong type) keeps its other blocks — the user's words beside an unreadable image are not
 * lost with it. Pure.
 */
import { SESSION_VERSION, type SessionEntry } from './entries';
import { decodeLine } from './lineCodec';
import { isPlainObject } from '../normalize/surrogates';

/** A message read without the blocks that could not be read. */
export interface SalvagedMessage {
  readonly entry: SessionEntry;
  /** How many blocks were left out, and why the first of them could not be read. */
  readonly droppedBlocks: number;
  readonly reason: string;
}

/**
 * The message entry of `line` with every block that does not decode on its own left out,
 * when at least one block does and the rest of the entry is valid; otherwise undefined (the
 * line is then dropped as a whole). `version`: the file's format version.
 */
export function salvageMessageBlocks(line: string, version: number = SESSION_VERSION): SalvagedMessage | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isPlainObject(json) || json.type !== 'message' || !isPlainObject(json.message)) return undefined;
  const { message } = json;
  const blocks = message.blocks;
  if (!Array.isArray(blocks) || blocks.length === 0) return undefined;
  const withBlocks = (kept: unknown[]) => JSON.stringify({ ...json, message: { ...message, blocks: kept } });
  const kept: unknown[] = [];
  let reason: string | undefined;
  for (const block of blocks) {
    const alone = decodeLine(withBlocks([block]), version);
    if (alone.ok) kept.push(block);
    else reason ??= alone.reason.replace(/^message\.blocks\.0\.?/, '');
  }
  if (kept.length === 0 || kept.length === blocks.length) return undefined;
  const d = decodeLine(withBlocks(kept), version);
  return d.ok
    ? { entry: d.entry, droppedBlocks: blocks.length - kept.length, reason: reason ?? 'unreadable' }
    : undefined;
}
