/**
 * What the scripted summariser reads of a summariser request: the stretch to summarise as
 * lines, each marked as the conversation's own words (what the user and the assistant wrote,
 * the tool calls the assistant made, earlier summaries) or as material (tool output, injected
 * context, private reasoning). A real summariser tells them apart as it reads; so does this,
 * from the request's structure: API blocks for a main-model request (mainSummary.ts), the
 * rendered transcript's labels for a summariser-model request (summaryPrompt.ts's
 * `renderTranscript`, whose labels test/unit/benchSummaryKeep.test.ts checks against it).
 */
import type { ContentBlockParam, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { stretchOfRequest } from '../src/core/compaction/mainSummary';

/** One line of the stretch, in order, with whether the conversation itself said it. */
export interface PassageLine {
  readonly text: string;
  readonly words: boolean;
}

/** Labels that open a block of the rendered transcript, and whether what follows is the conversation's words. */
const LABELS: readonly (readonly [RegExp, boolean])[] = [
  [/^--- (?:User|Assistant) message \(turn \d+\) ---$/, true],
  [/^User: /, true],
  [/^Assistant: /, true],
  [/^Assistant called tool /, true],
  [/^\[Earlier summary of turns /, true],
  [/^\[Injected context\]$/, false],
  [/^Result of .* \([^()]*\)(?: \[error\])?:$/, false],
  [/^Assistant \(private reasoning\): /, false],
  [/^Assistant \(API server tool\) /, false],
];

/** Lines of the rendered transcript that are labels or marks alone, no content of the conversation. */
const STRUCTURE =
  /^--- (?:User|Assistant) message \(turn \d+\) ---$|^\[Injected context\]$|^Result of .* \([^()]*\)(?: \[error\])?:$|^\[… [\d,]+ characters cut …\]$/;

/** Whether a line of the rendered transcript is a label or a mark alone (a block's header, a cut). */
export function isStructure(text: string): boolean {
  return STRUCTURE.test(text.trim());
}

/** The request's own sections around the stretch: only `<transcript>` and `<previous_summary>` are read. */
const OPEN = /^<(transcript|previous_summary)\b[^>]*>$/;
const CLOSE = /^<\/(transcript|previous_summary)>$/;

/**
 * The lines of the stretch a summariser request asks to summarise. A main-model request: the
 * messages its instruction names, text and tool calls as words, tool results as material. A
 * summariser-model request: the lines inside its `<transcript>` and `<previous_summary>`
 * sections (the whole text when it has neither), each block's lines marked by its label.
 */
export function requestPassages(params: MessageCreateParamsNonStreaming): PassageLine[] {
  const stretch = stretchOfRequest(params);
  if (stretch) {
    return params.messages.slice(stretch.from - 1, stretch.to).flatMap((m) =>
      typeof m.content === 'string'
        ? linesOf(m.content, true)
        : m.content.flatMap((b) => {
            const read = blockRead(b);
            return read ? linesOf(read.text, read.words) : [];
          }),
    );
  }
  return params.messages.flatMap((m) =>
    typeof m.content === 'string'
      ? transcriptLines(m.content)
      : m.content.flatMap((b) => (b.type === 'text' ? transcriptLines(b.text) : [])),
  );
}

/**
 * The lines of a rendered transcript (or of a request's text holding one), each marked by the
 * label of the block it belongs to; lines before any label are words. The labels themselves
 * are kept, as part of their first line.
 */
export function transcriptLines(text: string): PassageLine[] {
  const all = text.split('\n');
  const sectioned = all.some((l) => OPEN.test(l.trim()));
  let inside = !sectioned;
  let words = true;
  const out: PassageLine[] = [];
  for (const raw of all) {
    const line = raw.trimEnd();
    if (sectioned && OPEN.test(line.trim())) {
      inside = true;
      words = true;
      continue;
    }
    if (sectioned && CLOSE.test(line.trim())) {
      inside = false;
      continue;
    }
    if (!inside) continue;
    const label = LABELS.find(([re]) => re.test(line));
    if (label) words = label[1];
    out.push({ text: line, words });
  }
  return out;
}

/** What a block of a main-model request gives: text and tool calls are words, tool results material. */
function blockRead(b: ContentBlockParam): { text: string; words: boolean } | undefined {
  switch (b.type) {
    case 'text':
      return { text: b.text, words: true };
    case 'tool_use':
      return { text: `${b.name} ${JSON.stringify(b.input)}`, words: true };
    case 'tool_result':
      return {
        text:
          typeof b.content === 'string'
            ? b.content
            : (b.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('\n'),
        words: false,
      };
    default:
      return undefined;
  }
}

function linesOf(text: string, words: boolean): PassageLine[] {
  return text.split('\n').map((l) => ({ text: l.trimEnd(), words }));
}
