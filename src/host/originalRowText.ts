/**
 * The words of an original message's row in the Compactions view: what the message held, so
 * a user sees what was compacted without opening each one — the user's words or the answer's
 * text, each tool call by its name and telling input (`read_file src/a.ts`), each tool result
 * by the call it answers and its size. Plain text (no `vscode`), so it is unit-tested.
 */
import { describeToolCall } from '../core/compaction/toolKinds';
import { describeServerBlock } from '../core/conversation/serverTools';
import { isPlaceholder, resultText } from '../core/compaction/layerContext';
import type { CompactionRecord } from '../core/compaction/types';
import type { Block, Message, ToolResultBlock, ToolUseBlock } from '../core/conversation/conversationModel';
import { headChars } from '../core/platform/text';
import { formatCount } from '../core/tools/result';

/** Finds the call a tool result answers, by its id; undefined when no record holds it. */
export type CallLookup = (toolUseId: string) => ToolUseBlock | undefined;

/** Characters of text a description shows of one text block. */
const TEXT_CHARS = 60;
/** Characters a whole description shows at most. */
const DESCRIPTION_CHARS = 120;
/** Characters of text a tooltip shows of one text block. */
const TOOLTIP_TEXT_CHARS = 300;

/**
 * Every tool call in `records` (originals and replacements) and in `live` (the conversation as
 * it stands: a record of cleared results often starts after the call of its first one), by id.
 */
export function callsIn(
  records: readonly Pick<CompactionRecord, 'originals' | 'replacement'>[],
  live: readonly Message[] = [],
): CallLookup {
  const calls = new Map<string, ToolUseBlock>();
  for (const m of [...records.flatMap((r) => [...r.originals, ...r.replacement]), ...live])
    for (const b of m.blocks) if (b.type === 'tool_use' && !calls.has(b.id)) calls.set(b.id, b);
  return (id) => calls.get(id);
}

/** `text` on one line, at most `n` characters (an ellipsis when cut, never half a surrogate pair). */
function oneLine(text: string, n: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= n ? flat : `${headChars(flat, n - 1)}…`;
}

/** `read_file src/a.ts`, or `an earlier tool call` when its call is not in any record. */
function callOf(result: ToolResultBlock, lookup: CallLookup): string {
  const use = lookup(result.toolUseId);
  return use ? describeToolCall(use) : 'an earlier tool call';
}

/** `11,234 chars`, `1 image`, `cleared` (a placeholder of an earlier layer). */
function resultSize(result: ToolResultBlock): string {
  if (isPlaceholder(result.content)) return 'already cleared';
  const chars = resultText(result.content).length;
  const images = typeof result.content === 'string' ? 0 : result.content.filter((p) => p.type === 'image').length;
  return [
    ...(chars > 0 || images === 0 ? [`${formatCount(chars)} chars`] : []),
    ...(images > 0 ? [`${formatCount(images)} image${images === 1 ? '' : 's'}`] : []),
  ].join(' + ');
}

/** The text blocks a row quotes: the user's own words (or the answer's text), else any text. */
function quotedTexts(m: Message): string[] {
  const texts = m.blocks.filter((b) => b.type === 'text' || b.type === 'summary');
  const own = texts.filter((b) => m.role === 'assistant' || b.type === 'summary' || b.meta.source === 'user');
  return (own.length > 0 ? own : texts).map((b) => b.text);
}

/** One block in a few words for the description; undefined for text (quoted separately). */
function blockPhrase(b: Block, lookup: CallLookup): string | undefined {
  switch (b.type) {
    case 'tool_use':
      return describeToolCall(b);
    case 'tool_result':
      return `${b.isError ? 'error from' : 'result of'} ${callOf(b, lookup)} (${resultSize(b)})`;
    case 'thinking':
      return 'thinking';
    case 'image':
      return 'image';
    case 'server_tool':
      return describeServerBlock(b);
    default:
      return undefined;
  }
}

/**
 * The row's description: the quoted words first, then each call and result — e.g.
 * `Let me read it. · read_file src/a.ts`, `result of read_file src/a.ts (11,234 chars)`.
 * At most {@link DESCRIPTION_CHARS} characters; the block types when nothing else fits.
 */
export function originalDescription(m: Message, lookup: CallLookup): string {
  const texts = quotedTexts(m)
    .map((t) => oneLine(t, TEXT_CHARS))
    .filter((t) => t !== '');
  const phrases = m.blocks.flatMap((b) => blockPhrase(b, lookup) ?? []);
  // Repeated thinking blocks say so once.
  const parts = [...texts, ...phrases.filter((p, i) => p !== 'thinking' || phrases.indexOf(p) === i)];
  return parts.length > 0 ? oneLine(parts.join(' · '), DESCRIPTION_CHARS) : m.blocks.map((b) => b.type).join(', ');
}

/** The row's tooltip (Markdown): one line per block, then how to see the whole message. */
export function originalTooltip(m: Message, lookup: CallLookup): string {
  const lines = m.blocks.map((b): string => {
    switch (b.type) {
      case 'text':
        return `- ${b.meta.source === 'user' || m.role === 'assistant' ? 'Text' : `Text (${b.meta.source})`}: ${code(oneLine(b.text, TOOLTIP_TEXT_CHARS))}`;
      case 'summary':
        return `- Summary: ${code(oneLine(b.text, TOOLTIP_TEXT_CHARS))}`;
      case 'tool_use':
        return `- Tool call: ${code(describeToolCall(b))}`;
      case 'tool_result':
        return `- Tool result${b.isError ? ' (error)' : ''} of ${code(callOf(b, lookup))}: ${resultSize(b)}`;
      case 'thinking':
        return b.redactedData !== undefined
          ? '- Thinking (redacted)'
          : `- Thinking: ${formatCount(b.thinking.length)} chars`;
      case 'image':
        return `- Image (${b.mediaType})`;
      case 'server_tool':
        return `- Server tool: ${code(oneLine(describeServerBlock(b), TOOLTIP_TEXT_CHARS))}`;
    }
  });
  return [`**${m.role} · turn ${m.turn}**`, '', ...lines, '', 'Click to open the whole message, read-only.'].join('\n');
}

/** `text` as inline Markdown code: its backticks replaced by a look-alike so it cannot close the span. */
export function code(text: string): string {
  return `\`${text.replace(/`/g, 'ˋ')}\``;
}
