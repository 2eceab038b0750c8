/**
 * The one rule set for repairing a conversation, applied in two places, each with its contract:
 *
 * - **on load** (`session/repairMessages`, `session/repair.ts`): what the session file holds is
 *   made to satisfy `checkInvariants` (a final assistant message may keep its calls open); the
 *   session keeps the result (the loader writes it back as a `repair` entry) and each change
 *   is listed as a sentence;
 * - **before sending** (`normalizeState`, `normalize.ts`): any state becomes a request the API
 *   accepts, on a copy — the stored state is never changed — with each repair named.
 *
 * The shared rules, in the order they apply (the structural ones, 3 to 8, are `repairStructure`
 * in `structure.ts`, which both passes call):
 *
 * 1. A block in a role that cannot hold it (`roleMayHold`) becomes text saying what it was —
 *    a tool call or a tool result in the wrong message, an image in an assistant message —
 *    or, for thinking and server tool blocks in a user message, is left out (`wrongRoleBlocks`).
 * 2. Empty or whitespace-only text is left out.
 * 3. A message with no content left is left out (`empty_message`).
 * 4. A conversation that starts with the assistant gets a user message first
 *    (`START_PLACEHOLDER`), unless it opens with the block of a compaction on demand, which
 *    must come first.
 * 5. Consecutive user messages become one (the first one's id kept); consecutive assistant
 *    messages too, unless the first makes tool calls: then a user message answering them is
 *    put between the two.
 * 6. A tool call id used earlier in the conversation is renamed `<id>_2`, `<id>_3`…
 *    (`toolIdAllocator`), and its result in the next message with it.
 * 7. The message after tool calls answers each once, results first: a call without a result
 *    gets an error result, `INTERRUPTED_CALL` (`interruptedToolResult`); a result whose call is
 *    not in the message just before, or a second result for one call, becomes text, its images
 *    kept after it (`orphanResultBlocks`).
 * 8. A final assistant message: on load it stays as it is (its open calls are answered with
 *    the user's next words, `agent/agentSession.ts`, with the same `INTERRUPTED_CALL`); in a
 *    request a user message follows it, holding the results of its calls, or
 *    `CONTINUE_PLACEHOLDER`. An empty conversation stays empty on load and is one
 *    `START_PLACEHOLDER` message in a request.
 *
 * Rules of one pass only, each for a reason:
 *
 * - load only — the session's own rules, not the API's (`session/repair.ts`): a message
 *   written twice is dropped; repeated message and block ids are renamed, and the ids of the
 *   messages and blocks the rules add are fresh; summaries and the user's words are made
 *   non-compactable; decreasing turns are raised;
 * - send only — the wire format, fixed in every request so the session keeps what it holds
 *   (`blocks.ts`, `serverBlocks.ts`, `imageLimits.ts`): lone surrogates, thinking without a
 *   signature, images the API refuses, tool ids outside its pattern, inputs that are not
 *   objects, unpaired server tool blocks, an empty error result, a server compaction block in
 *   a user message, the request's image limits.
 *
 * So a damaged conversation repaired on load and then sent has the structure (roles, tool
 * calls and their answers, stand-in texts) it has when it is sent unrepaired.
 */
import type {
  Block,
  BlockMeta,
  ImageBlock,
  Message,
  TextBlock,
  ToolResultBlock,
  ToolResultContent,
  ToolUseBlock,
} from '../conversation/conversationModel';
import { INTERRUPTED_CALL } from './standInAnswers';

/** Rule 1's test: whether a message of a role may hold a block (defined beside the invariants it checks). */
export { roleMayHold } from '../conversation/invariants';

/** `meta` for a block a repair made from another: same id and origin, no token memo (the content changed). */
export function derivedMeta(meta: BlockMeta, toolUseId?: string): BlockMeta {
  const { tokenCount: _memo, toolUseId: _old, ...rest } = meta;
  return toolUseId === undefined ? rest : { ...rest, toolUseId };
}

/** A text block standing for another block (its id and origin kept). */
export function textFor(meta: BlockMeta, text: string): TextBlock {
  return { type: 'text', text, meta: derivedMeta(meta) };
}

/** A tool result's content as plain text (images named). */
export function resultText(content: ToolResultContent): string {
  return typeof content === 'string'
    ? content
    : content.map((p) => (p.type === 'text' ? p.text : `[image ${p.mediaType}]`)).join('\n');
}

/**
 * Rule 1: what block `b`, in a message of a role that cannot hold it, becomes: a text block
 * (its id kept) naming what it was, with the call's input or the result's text; nothing for
 * thinking and server tool blocks. Texts are built from the block as it is: normalize replaces
 * lone surrogates in them afterwards, the session keeps them.
 */
export function wrongRoleBlocks(b: Block): Block[] {
  switch (b.type) {
    case 'tool_use':
      return [
        textFor(
          b.meta,
          `[A tool call ${b.name} (${b.id}) found in a user message]\n${JSON.stringify(b.input) ?? '{}'}`,
        ),
      ];
    case 'tool_result': {
      const body = resultText(b.content);
      return [
        textFor(
          b.meta,
          `[A result of the tool call ${b.toolUseId} found in an assistant message]${body.trim() ? `\n${body}` : ''}`,
        ),
      ];
    }
    case 'image':
      return [textFor(b.meta, `[An image (${b.mediaType}) in an assistant message was left out.]`)];
    case 'thinking':
    case 'server_tool':
      return [];
    case 'text':
    case 'summary':
      return [b];
  }
}

/**
 * Rule 7: the error result answering tool call `u`, which has none: `INTERRUPTED_CALL`, block
 * id `id`, dated like the call. The one shape both passes add (the session keeps it on load).
 */
export function interruptedToolResult(u: ToolUseBlock, id: string): ToolResultBlock {
  return {
    type: 'tool_result',
    toolUseId: u.id,
    content: INTERRUPTED_CALL,
    isError: true,
    meta: {
      id,
      tier: 3,
      source: 'tool',
      createdAt: u.meta.createdAt,
      toolUseId: u.id,
      pinned: false,
      compactable: true,
    },
  };
}

/** Rule 7: the heading of a tool result that answers nothing, or answers a call a second time. */
export function orphanHeading(b: ToolResultBlock, duplicate: boolean): string {
  const error = b.isError ? ' (an error)' : '';
  return duplicate
    ? `[A second result of the tool call ${b.toolUseId}, which was already answered${error}]`
    : `[Result of an earlier tool call ${b.toolUseId}, whose call is no longer in the history${error}]`;
}

/**
 * Rule 7: a tool result that answers nothing (or a call already answered), as blocks the user
 * message can hold: a text block (its id kept) with the heading and the result's text (blank
 * parts left out), then its images, the i-th content part with block id `imageId(i)`.
 */
export function orphanResultBlocks(b: ToolResultBlock, duplicate: boolean, imageId: (i: number) => string): Block[] {
  const heading = orphanHeading(b, duplicate);
  // Blank text parts say nothing (normalize leaves them out of a result before this rule runs).
  const text = resultText(
    typeof b.content === 'string' ? b.content : b.content.filter((p) => p.type === 'text' && p.text.trim() !== ''),
  );
  const blocks: Block[] = [textFor(b.meta, text.trim() ? `${heading}\n${text}` : heading)];
  if (typeof b.content !== 'string')
    b.content.forEach((p, i) => {
      if (p.type !== 'image') return;
      const image: ImageBlock = {
        type: 'image',
        mediaType: p.mediaType,
        data: p.data,
        meta: { ...derivedMeta(b.meta), id: imageId(i) },
      };
      blocks.push(image);
    });
  return blocks;
}

/**
 * Rule 6: `next(id)` gives a tool call id used nowhere in `taken` (which it extends):
 * `<id>_2`, `<id>_3`… Each base keeps its next suffix, so n repeats of one id cost O(n) probes
 * in all.
 */
export function toolIdAllocator(taken: Set<string>): (id: string) => string {
  const nextSuffix = new Map<string, number>();
  return (base) => {
    let n = nextSuffix.get(base) ?? 2;
    while (taken.has(`${base}_${n}`)) n++;
    nextSuffix.set(base, n + 1);
    const id = `${base}_${n}`;
    taken.add(id);
    return id;
  };
}

/**
 * The detail of rule 5's repair: the ids of the messages sent as one (the first five, then how
 * many more), so a run of thousands stays one short sentence.
 */
export function mergedDetail(role: Message['role'], ids: readonly string[]): string {
  const named = ids.length > 5 ? `${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more` : ids.join(', ');
  return `Messages ${named} were consecutive ${role} messages; they were merged into one.`;
}
