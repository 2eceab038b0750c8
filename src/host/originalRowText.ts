/**
 * The words of an original message's row in the Compactions view: what the message held, so
 * a user sees what was compacted without opening each one — `Your message` with the user's
 * words, a tool call as the chat's row names it (`Read src/a.ts`, callSummary), a tool result
 * by the call it answers (`Result of Read src/a.ts`) and its size — and the title of the tab
 * that opens it (`Turn 2 · your message`). Plain text (no `vscode`), so it is unit-tested.
 */
import { callSummary, type ToolLookup } from '../core/tools/callSummary';
import { describeServerBlock } from '../core/conversation/serverTools';
import { isPlaceholder, resultText } from '../core/compaction/layerContext';
import type { CompactionRecord } from '../core/compaction/types';
import type { Block, Message, ToolResultBlock, ToolUseBlock } from '../core/conversation/conversationModel';
import { headChars } from '../core/platform/text';
import { formatCount } from '../core/text/counts';

/** Finds the call a tool result answers, by its id; undefined when no record holds it. */
export type CallLookup = (toolUseId: string) => ToolUseBlock | undefined;

/** How a row names a tool call: `Read src/a.ts` from the tool's definition, `read_file src/a.ts` without one. */
export type CallNamer = (use: ToolUseBlock) => string;

/** The namer of calls: the chat's one-line call summary, with the host's definitions when given. */
export function callNamer(definition?: ToolLookup): CallNamer {
  return (use) => callSummary(definition?.(use.name), use.name, use.input);
}

const byInput = callNamer();

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

/** `Read src/a.ts`, or `an earlier tool call` when its call is not in any record. */
function callOf(result: ToolResultBlock, lookup: CallLookup, name: CallNamer): string {
  const use = lookup(result.toolUseId);
  return use ? name(use) : 'an earlier tool call';
}

/** `result of Read src/a.ts`, `error from …`. */
function resultPhrase(result: ToolResultBlock, lookup: CallLookup, name: CallNamer): string {
  return `${result.isError ? 'error from' : 'result of'} ${callOf(result, lookup, name)}`;
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
function blockPhrase(b: Block, lookup: CallLookup, name: CallNamer): string | undefined {
  switch (b.type) {
    case 'tool_use':
      return name(b);
    case 'tool_result':
      return `${resultPhrase(b, lookup, name)} (${resultSize(b)})`;
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
 * `covered`: a block the row's label already names, said here by its size only (a result) or
 * left out (a call).
 */
export function originalDescription(
  m: Message,
  lookup: CallLookup,
  name: CallNamer = byInput,
  covered?: Block,
): string {
  const texts = quotedTexts(m)
    .map((t) => oneLine(t, TEXT_CHARS))
    .filter((t) => t !== '');
  const phrases = m.blocks.flatMap((b) =>
    b !== covered ? (blockPhrase(b, lookup, name) ?? []) : b.type === 'tool_result' ? [resultSize(b)] : [],
  );
  // Repeated thinking blocks say so once.
  const parts = [...texts, ...phrases.filter((p, i) => p !== 'thinking' || phrases.indexOf(p) === i)];
  if (parts.length > 0) return oneLine(parts.join(' · '), DESCRIPTION_CHARS);
  return covered ? '' : m.blocks.map((b) => b.type).join(', ');
}

/** Labels a row starts with a capital but a tab title, after `Turn 2 · `, does not. */
const GENERIC = new Set(['Your message', 'Summary', 'Context']);

/**
 * An original message's row: its label says what it is — `Your message`, `Result of Read
 * src/a.ts` (one result), `3 tool results`, `Read src/a.ts` (one call), `2 tool calls`,
 * `Claude's answer`, `Summary`, `Context` (only injected context) — and its description the
 * rest (the words, the result's size, the other blocks).
 */
export function originalRow(
  m: Message,
  lookup: CallLookup,
  name: CallNamer = byInput,
): { label: string; description: string } {
  const results = m.blocks.filter((b): b is ToolResultBlock => b.type === 'tool_result');
  const calls = m.blocks.filter((b): b is ToolUseBlock => b.type === 'tool_use');
  const one = <T>(xs: readonly T[]): T | undefined => (xs.length === 1 ? xs[0] : undefined);
  let label: string;
  let covered: Block | undefined;
  if (m.role === 'user') {
    const result = one(results);
    if (m.blocks.some((b) => b.type === 'text' && b.meta.source === 'user' && b.text.trim() !== ''))
      label = 'Your message';
    else if (m.blocks.some((b) => b.type === 'summary')) label = 'Summary';
    else if (result) {
      const phrase = resultPhrase(result, lookup, name);
      label = phrase.charAt(0).toUpperCase() + phrase.slice(1);
      covered = result;
    } else label = results.length > 1 ? `${formatCount(results.length)} tool results` : 'Context';
  } else {
    const call = one(calls);
    covered = call;
    label = call ? name(call) : calls.length > 1 ? `${formatCount(calls.length)} tool calls` : "Claude's answer";
  }
  return { label, description: originalDescription(m, lookup, name, covered) };
}

/** `Turn 2 · your message`, `Turn 2 · Read src/a.ts`: the title of the tab that opens an original. */
export function originalTitle(m: Message, lookup: CallLookup, name: CallNamer = byInput): string {
  const { label } = originalRow(m, lookup, name);
  return `Turn ${m.turn} · ${GENERIC.has(label) ? label.toLowerCase() : label}`;
}

/** The titles of `messages` by id, each unique: a repeated one gets ` (2)`, ` (3)` … */
export function originalTitles(
  messages: readonly Message[],
  lookup: CallLookup,
  name: CallNamer = byInput,
): Map<string, string> {
  const seen = new Map<string, number>();
  const out = new Map<string, string>();
  for (const m of messages) {
    const title = originalTitle(m, lookup, name);
    const n = (seen.get(title) ?? 0) + 1;
    seen.set(title, n);
    out.set(m.id, n === 1 ? title : `${title} (${n})`);
  }
  return out;
}

/** The row's tooltip (Markdown): one line per block, then how to see the whole message. */
export function originalTooltip(m: Message, lookup: CallLookup, name: CallNamer = byInput): string {
  const lines = m.blocks.map((b): string => {
    switch (b.type) {
      case 'text':
        return `- ${b.meta.source === 'user' || m.role === 'assistant' ? 'Text' : `Text (${b.meta.source})`}: ${code(oneLine(b.text, TOOLTIP_TEXT_CHARS))}`;
      case 'summary':
        return `- Summary: ${code(oneLine(b.text, TOOLTIP_TEXT_CHARS))}`;
      case 'tool_use':
        return `- Tool call: ${code(name(b))}`;
      case 'tool_result':
        return `- Tool result${b.isError ? ' (error)' : ''} of ${code(callOf(b, lookup, name))}: ${resultSize(b)}`;
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
  return [
    `**${originalTitle(m, lookup, name)}**`,
    '',
    ...lines,
    '',
    'Click to open the whole message, read-only.',
  ].join('\n');
}

/** `text` as inline Markdown code: its backticks replaced by a look-alike so it cannot close the span. */
export function code(text: string): string {
  return `\`${text.replace(/`/g, 'ˋ')}\``;
}
