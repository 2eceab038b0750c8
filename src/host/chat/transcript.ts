import type { ToolOutcome } from '../../core/tools/toolRunner';
import { isPlaceholder } from '../../core/compaction/layerContext';
import { isSpillPreview } from '../../core/compaction/toolResultGuard';
import { isUserWords } from '../../core/compaction/regions';
import { headChars } from '../../core/platform/text';
import { IMAGE_FRAMING } from '../../core/tokens/blockTokens';
import { imageTokens } from '../../core/conversation/imageSize';
import { endsInsideTurn } from '../../core/compaction/summaryReplacement';
import { summaryParts } from '../../core/compaction/summaryParts';
import type {
  Block,
  InjectionRef,
  Message,
  SummaryBlock,
  ToolResultContent,
} from '../../core/conversation/conversationModel';
import type { ChatItem, ChatThinking } from '../../protocol/chatItems';
import { INTERRUPTED_CALL, isStandInAnswer } from '../../core/normalize/standInAnswers';
import { describeServerBlocks } from '../../core/conversation/serverTools';
import { callSummary, type ToolLookup } from '../../core/tools/callSummary';
import { declinedOf } from '../../core/tools/approvalWords';
import { compactedGroup, type CompactedHistory } from './compactedHistory';
import { userItems } from './userBubbles';

/** Longest tool input / result preview the chat shows (the full text stays in the session). */
export const PREVIEW_CHARS = 4_000;

/**
 * What an injected block looks like in the chat: its tag, a short label and the exact text.
 * Read from the block's structured `meta.injection`; blocks saved before it existed fall back
 * to parsing the text (their tag, an opened file's path, a selection's path and lines), so
 * older sessions keep their labels.
 */
export function injectedOf(block: Block): { tag: string; label: string; text: string } | undefined {
  if (block.type !== 'text') return undefined;
  const src = block.meta.source;
  if (
    src !== 'ide_selection' &&
    src !== 'ide_opened_file' &&
    src !== 'attached_file' &&
    src !== 'reminder' &&
    src !== 'hook'
  )
    return undefined;
  const ref = block.meta.injection;
  const tag = ref?.tag ?? /^<([a-z][a-z0-9_-]*)>/.exec(block.text)?.[1] ?? src;
  let label = tag;
  if (src === 'reminder') label = block.meta.origin ?? firstLine(block.text, tag) ?? tag;
  if (src === 'ide_opened_file') label = ref?.path ?? /opened the file (.*?) in the IDE/.exec(block.text)?.[1] ?? tag;
  if (src === 'ide_selection') label = selectionLabel(block.text, ref) ?? tag;
  if (src === 'attached_file') label = ref?.path ?? tag;
  return { tag, label, text: block.text };
}

/** Longest label the chat derives from an injected block's own first line. */
export const INJECTED_LABEL_CHARS = 48;

/** The first non-empty line inside `<tag>…`, cut to {@link INJECTED_LABEL_CHARS}; undefined when there is none. */
function firstLine(text: string, tag: string): string | undefined {
  const body = text.startsWith(`<${tag}>`) ? text.slice(tag.length + 2) : text;
  const line = body
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && l !== `</${tag}>`);
  if (!line) return undefined;
  return line.length > INJECTED_LABEL_CHARS ? `${headChars(line, INJECTED_LABEL_CHARS - 1).trimEnd()}…` : line;
}

/** `path:start-end` of a selection block: from its structured data, else (older sessions) from its text. */
function selectionLabel(text: string, ref: InjectionRef | undefined): string | undefined {
  if (ref?.path !== undefined && ref.startLine !== undefined && ref.endLine !== undefined)
    return `${ref.path}:${ref.startLine}-${ref.endLine}`;
  const m = /selected the lines (\d+) to (\d+) from (.*?):\n/.exec(text);
  return m ? `${m[3]}:${m[1]}-${m[2]}` : undefined;
}

/** A tool result's content as plain text for the chat (images named, not shown). */
export function resultText(content: ToolResultContent): string {
  const text =
    typeof content === 'string'
      ? content
      : content.map((p) => (p.type === 'text' ? p.text : `[image ${p.mediaType}]`)).join('\n');
  return text.length > PREVIEW_CHARS
    ? `${headChars(text, PREVIEW_CHARS)}\n… (${(text.length - PREVIEW_CHARS).toLocaleString('en-US')} more characters)`
    : text;
}

/** A tool call's input as short JSON for the chat. */
export function inputText(input: unknown): string {
  const json = JSON.stringify(input, null, 2) ?? '';
  return json.length > PREVIEW_CHARS ? `${headChars(json, PREVIEW_CHARS)}…` : json;
}

/**
 * The chat item of a tool call (running until it has an outcome), with its one-line summary
 * from the tool's definition (`lookup`; see callSummary); `tokensOf` counts the result as the
 * model sees it. A call the user declined is `declined` with their reason (from the result's
 * words, so a saved session shows it too). A result compaction replaced by a placeholder is
 * marked `cleared`; one a guard saved to a file (the model sees its beginning and the path) is
 * marked `spilled`.
 */
export function toolItem(
  id: string,
  name: string,
  input: unknown,
  outcome?: ToolOutcome | { content: ToolResultContent; isError: boolean },
  tokensOf?: TokensOf,
  lookup?: ToolLookup,
): ChatItem {
  const cancelled = outcome?.isError && typeof outcome.content === 'string' && outcome.content.startsWith('Cancelled:');
  const declined = outcome?.isError ? declinedOf(outcome.content) : undefined;
  const status = !outcome
    ? 'running'
    : cancelled
      ? 'cancelled'
      : declined
        ? 'declined'
        : outcome.isError
          ? 'error'
          : 'done';
  return {
    kind: 'tool',
    id,
    name,
    summary: callSummary(lookup?.(name), name, input),
    input: inputText(input),
    status,
    ...(declined?.reason ? { reason: declined.reason } : {}),
    ...(outcome ? { result: resultText(outcome.content) } : {}),
    ...(outcome && 'durationMs' in outcome && outcome.durationMs !== undefined
      ? { durationMs: outcome.durationMs }
      : {}),
    ...(outcome && tokensOf
      ? { tokens: Math.round(tokensOf.text(fullText(outcome.content)) + imageTokensOf(outcome.content)) }
      : {}),
    ...(outcome && isPlaceholder(outcome.content) ? { cleared: true } : {}),
    ...(outcome && isSpillPreview(outcome.content) ? { spilled: true } : {}),
  };
}

/** Calibrated token counts, when the caller can count them: of a message, and of plain text. */
export interface TokensOf {
  (m: Message): number;
  text(text: string): number;
}

/** All of a tool result's text (its images are counted by {@link imageTokensOf}). */
function fullText(content: ToolResultContent): string {
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

/** API tokens of a tool result's images, by their pixel size (with their framing), as the estimate counts them. */
function imageTokensOf(content: ToolResultContent): number {
  if (typeof content === 'string') return 0;
  let n = 0;
  for (const p of content) if (p.type === 'image') n += IMAGE_FRAMING + imageTokens(p.data);
  return n;
}

/**
 * An assistant message's thinking for the chat: the text of its thinking blocks, their
 * calibrated tokens when they can be counted, `redacted` when some were redacted; undefined
 * when the message has none, or only thinking the API returned without text (display
 * `omitted`: nothing to show, and the user did not ask to see it).
 */
export function thinkingOf(message: Message, tokensOf?: TokensOf): ChatThinking | undefined {
  const blocks = message.blocks.flatMap((b) => (b.type === 'thinking' ? [b] : []));
  const text = blocks.flatMap((b) => (b.redactedData === undefined && b.thinking ? [b.thinking] : [])).join('\n\n');
  const redacted = blocks.some((b) => b.redactedData !== undefined);
  if (!text && !redacted) return undefined;
  return {
    text,
    ...(tokensOf && text ? { tokens: Math.round(tokensOf.text(text)) } : {}),
    ...(redacted ? { redacted: true } : {}),
  };
}

/**
 * The chat item of a finished answer (`id`: the streamed item it replaces, else the message's
 * id); `standIn` when the extension wrote it in Claude's place.
 */
export function assistantItem(message: Message, tokensOf?: TokensOf, id = message.id): ChatItem {
  const text = message.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n\n');
  const thinking = thinkingOf(message, tokensOf);
  return {
    kind: 'assistant',
    id,
    text,
    streaming: false,
    messageId: message.id,
    pinned: isPinned(message),
    ...(tokensOf ? { tokens: Math.round(tokensOf(message)) } : {}),
    ...(thinking ? { thinking } : {}),
    ...(isStandInAnswer(text) ? { standIn: true } : {}),
  };
}

/** Whether every block of a message is pinned (the chat's per-message pin). */
export function isPinned(m: Message): boolean {
  return m.blocks.length > 0 && m.blocks.every((b) => b.meta.pinned);
}

/**
 * The name the chat gives a pasted image: its block id (unique in the session) and the size
 * of its data, so two images never share one even across sessions. Cheap: no hash of the data.
 */
export function imageRef(blockId: string, data: string): string {
  return `${blockId}#${data.length}`;
}

/** The first bubble of a user message (its words, the editor context and images sent with them); see userItems. */
export function userItem(message: Message, tokensOf?: TokensOf): ChatItem | undefined {
  return userItems(message, tokensOf).bubbles[0];
}

/** What a call without a result stands for when no turn runs: the result the next message sends for it. */
const INTERRUPTED: ToolOutcome = { content: INTERRUPTED_CALL, isError: true };

/**
 * The card of a summary block: the summary's own prose for a person (summaryParts), the
 * messages left out and the identifiers it does not carry; what only the model reads stays out.
 */
export function summaryItem(b: SummaryBlock): ChatItem {
  const parts = summaryParts(b.text);
  return {
    kind: 'summary',
    id: b.meta.id,
    firstTurn: b.turnRange[0],
    lastTurn: b.turnRange[1],
    text: parts.prose,
    compactionId: b.compactionId,
    ...(endsInsideTurn(b.text) ? { inTurn: true } : {}),
    ...(parts.leftOut.length ? { leftOut: [...parts.leftOut] } : {}),
    ...(parts.lost.length || parts.lostMore ? { lost: [...parts.lost], lostMore: parts.lostMore } : {}),
  };
}

/**
 * Rebuilds the whole transcript from the conversation (on resume or when the view reloads):
 * user words with their editor context (a bubble per message, reminders as notice lines:
 * userBubbles.ts), each summary with the group of the rounds it replaced (`history`: the
 * session's records, see compactedHistory.ts), assistant text (with its thinking), tool calls with their results,
 * and compaction summaries as notices (`inTurn` when the summary ends inside a turn: the
 * core writes IN_TURN_NOTE into exactly those, see endsInsideTurn). A call without a result
 * is running only while a turn runs (`turnRunning`) and it is in the last message; otherwise
 * it was interrupted (a session closed while its tools ran, reopened) and shows cancelled,
 * with the result its next message answers it with (INTERRUPTED_CALL). `lookup` finds the
 * tools' definitions for their rows' summaries.
 */
export function transcriptOf(
  messages: readonly Message[],
  tokensOf?: TokensOf,
  turnRunning = false,
  lookup?: ToolLookup,
  history?: CompactedHistory,
): ChatItem[] {
  const items: ChatItem[] = [];
  const results = new Map<string, { content: ToolResultContent; isError: boolean }>();
  for (const m of messages)
    for (const b of m.blocks)
      if (b.type === 'tool_result') results.set(b.toolUseId, { content: b.content, isError: b.isError ?? false });
  for (const m of messages) {
    if (m.role === 'user') {
      const { bubbles, reminders } = userItems(m, tokensOf, history && ((id) => history.reattached(id)));
      // Each summary card with the group of the rounds it replaced after it, then the reminders (a re-attach).
      const summaries: ChatItem[] = [];
      for (const b of m.blocks)
        if (b.type === 'summary') {
          const record = history?.record(b.compactionId);
          summaries.push(summaryItem(b), ...(history && record ? [compactedGroup(b.meta.id, record, history)] : []));
        }
      summaries.push(...reminders);
      // In the order the model reads them: a summary of whole turns comes before the user's
      // words it keeps ("…follow, verbatim"), one that ends inside a turn after them.
      const first = m.blocks.findIndex((b) => b.type === 'summary' || isUserWords(b));
      items.push(...(m.blocks[first]?.type === 'summary' ? [...summaries, ...bubbles] : [...bubbles, ...summaries]));
      continue;
    }
    // A tool-only answer keeps its header row (tokens, pin), as it does live (the webview draws it
    // `silent`); only an answer with nothing to show is left out.
    const item = assistantItem(m, tokensOf);
    if (item.kind === 'assistant' && (item.text || item.thinking || m.blocks.some((b) => b.type === 'tool_use')))
      items.push(item);
    items.push(...serverToolItems(m));
    const inFlight = turnRunning && m === messages.at(-1);
    for (const b of m.blocks)
      if (b.type === 'tool_use')
        items.push(
          toolItem(b.id, b.name, b.input, results.get(b.id) ?? (inFlight ? undefined : INTERRUPTED), tokensOf, lookup),
        );
  }
  return items;
}

/**
 * The API's server tool blocks of an assistant message (a tool search and what it found) as
 * small info notices, one per call and its result: `Tool search: searched tools for "x": found a, b`.
 * Minimal on purpose; the chat UI may give them a card of their own later.
 */
export function serverToolItems(m: Message): ChatItem[] {
  const blocks = m.blocks.flatMap((b) => (b.type === 'server_tool' ? [b] : []));
  if (blocks.length === 0) return [];
  return describeServerBlocks(blocks).map((line, i) => ({
    kind: 'notice' as const,
    id: `${blocks[0]?.meta.id ?? m.id}-server-${i}`,
    level: 'info' as const,
    text: `Server tool: ${line}`,
  }));
}
