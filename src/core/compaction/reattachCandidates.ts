/**
 * Which files a compaction re-attaches: the ones the agent read or edited most recently,
 * unless the kept history still shows them verbatim. Tool calls are recognised by what they
 * do (tools/toolKinds.ts), not by our own tool names. Pure.
 */
import type { Message, ToolResultBlock } from '../conversation/conversationModel';
import { isPlaceholder, toolResultSites } from './layerContext';
import { normalisePath } from './snip';
import { classifyToolCall } from '../tools/toolKinds';

/** How many files a compaction re-attaches at most. */
export const REATTACH_MAX_FILES = 5;

/** A file to re-attach: the path as the model last wrote it, and its normalised form. */
export interface ReattachCandidate {
  readonly path: string;
  readonly key: string;
}

/** A path's comparison key: backslashes as slashes, `./` and doubled slashes dropped. */
export function fileKey(path: string): string {
  return normalisePath(path.trim().replace(/\\/g, '/'));
}

/** A successful read or edit of a named file. */
export interface FileTouch {
  readonly kind: 'read' | 'edit';
  /** The path as the model wrote it (trimmed). */
  readonly path: string;
  /** {@link fileKey} of the path. */
  readonly key: string;
  /** Position of the call among all tool calls. */
  readonly order: number;
  /** Index of the message holding the result. */
  readonly messageIndex: number;
  readonly result: ToolResultBlock;
}

/**
 * The files to re-attach after a compaction, most recent first: of the `max` distinct paths
 * read or edited most recently in `before` (the whole history before the compaction), those
 * whose content is not already verbatim in `after` (the history
 * after it) — a read result of that path still stands there, not cleared by a cheaper layer,
 * and no successful edit of the path came after that read. Failed calls are not counted
 * (nothing was read or changed). Paths compare after normalisePath (`./a.ts` = `a.ts`).
 */
export function reattachCandidates(
  before: readonly Message[],
  after: readonly Message[],
  max = REATTACH_MAX_FILES,
): ReattachCandidate[] {
  const touches = fileTouches(before);
  const lastEdit = new Map<string, number>();
  for (const t of touches) if (t.kind === 'edit') lastEdit.set(t.key, t.order);
  const keptResults = new Set<string>();
  for (const m of after)
    for (const b of m.blocks)
      if (b.type === 'tool_result' && !b.isError && !isPlaceholder(b.content)) keptResults.add(b.toolUseId);
  const verbatim = new Set<string>();
  for (const t of touches) {
    if (t.kind === 'read' && keptResults.has(t.result.toolUseId) && t.order > (lastEdit.get(t.key) ?? -1))
      verbatim.add(t.key);
  }
  const picked: ReattachCandidate[] = [];
  const seen = new Set<string>();
  for (let i = touches.length - 1; i >= 0 && seen.size < max; i--) {
    const t = touches[i] as FileTouch;
    if (seen.has(t.key)) continue;
    seen.add(t.key);
    if (!verbatim.has(t.key)) picked.push({ path: t.path, key: t.key });
  }
  return picked;
}

/** Successful reads and edits that name a path, in conversation order (tools recognised by what they do). */
export function fileTouches(messages: readonly Message[]): FileTouch[] {
  const out: FileTouch[] = [];
  for (const site of toolResultSites(messages)) {
    if (!site.use || site.block.isError) continue;
    const info = classifyToolCall(site.use);
    if ((info.kind !== 'read' && info.kind !== 'edit') || info.path === undefined) continue;
    out.push({
      kind: info.kind,
      path: info.path.trim(),
      key: fileKey(info.path),
      order: site.useOrder,
      messageIndex: site.messageIndex,
      result: site.block,
    });
  }
  return out.sort((a, b) => a.order - b.order);
}
