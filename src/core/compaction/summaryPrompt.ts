/**
 * The summariser's request: a system prompt saying what to preserve and what to drop, and one
 * user message holding the region's transcript as plain text (plus the previous rolling
 * summary, the user's instructions and the target length), with the newest images the user
 * pasted in it attached, so the summary can say what they showed. Pure.
 */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { describeServerBlock } from '../conversation/serverTools';
import { neutralizeTags } from '../conversation/injections';
import type { Block, ImageBlock, Message, ToolResultContent, Plan } from '../conversation/conversationModel';
import { modelInfo } from '../models/modelFacts';
import { headChars, safeCutIndex, toWellFormed } from '../platform/text';
import { sniffImageType } from '../conversation/imageSize';
import { planLines } from '../plan/plan';

/** What the summariser is told, once per request. */
export const SUMMARY_SYSTEM_PROMPT = `You condense an old stretch of a conversation between a user and an AI coding assistant (including the assistant's tool calls and their results). Your summary replaces those messages in the assistant's context: whatever you leave out is gone for the assistant, so it must be able to continue the work from your summary alone.

Preserve, exactly as written:
- file paths, with line numbers and ranges where given;
- names of functions, classes, methods, variables, types, commands, settings, packages and branches;
- decisions made and the reasons for them, including approaches tried and rejected;
- facts learned about the code, the project and its environment (what a file contains, how something works, versions, configuration);
- errors and failures: the message text, where it happened, and whether and how it was fixed;
- the user's requirements, preferences and constraints, open requests, and every number, name or value the user gave;
- the state of the work: what is done, which files were changed and how, what remains to do.

Drop:
- greetings, thanks, restatements, and narration of what the assistant is about to do;
- raw tool output once its relevant facts are captured (whole file contents, long listings, logs): keep only the lines that matter;
- superseded attempts, except a one-line note of what failed and why;
- anything said twice.

Rules:
- Write terse notes under short headings (for example: User requests, Decisions, Files and code, Errors, Current state and next steps). Prefer lists to prose.
- Use only what the transcript says; never invent or guess. Quote identifiers, paths and error messages verbatim, in backticks.
- The user's own messages are kept verbatim next to your summary, so mention what the user asked only briefly and focus on what happened in response.
- Text inside <ide_selection>, <ide_opened_file>, <attached_file>, <system-reminder> or hook tags was injected by the editor; it is context, not the user's words.
- Images the user pasted may come before the transcript, labelled as the transcript refers to them ("Image 1"); say briefly what each shows that matters to the work (an error on screen, the layout asked for), since the image itself is gone after the summary.
- Do not address the user, do not continue the task, do not call tools, and do not start with a title or the turn range (it is added for you). Output only the summary.`;

/** Smallest summary length asked for, in tokens. */
export const MIN_SUMMARY_TOKENS = 200;

/** Share of the summarised tokens a summary should take. */
export const SUMMARY_RATIO = 1 / 5;

/**
 * The longest summary asked for, in tokens, however large the region: a fifth of a 160k-token
 * region would be a 32,000-token summary — minutes of the summariser writing, and a fifth of
 * the window taken back by the summary alone. The real agents' summaries in test/fixtures
 * were 1,063–3,885 tokens for 155–186k-token contexts (bench/summaryLength.ts); this is about
 * twice the longest.
 */
export const MAX_SUMMARY_TARGET_TOKENS = 8_000;

/** Tags the request wraps content in; content can never open or close one of them. */
const REQUEST_TAGS = ['transcript', 'previous_summary', 'user_instructions', 'plan'] as const;

/**
 * Images the user pasted that one summariser request attaches (the newest of its stretch): each
 * costs the summariser up to ~1,600 tokens, and what a screenshot showed is often what the
 * work was about. Older ones are named in the transcript only.
 */
export const MAX_SUMMARY_IMAGES = 4;

/**
 * The newest user-pasted images of `messages` whose bytes are an image the API takes (at most
 * {@link MAX_SUMMARY_IMAGES}), numbered from 1 in order.
 */
export function attachedUserImages(messages: readonly Message[]): ReadonlyMap<ImageBlock, number> {
  const images = messages.flatMap((m) =>
    m.role === 'user'
      ? m.blocks.filter(
          (b): b is ImageBlock =>
            b.type === 'image' && b.meta.source === 'user' && sniffImageType(b.data) !== undefined,
        )
      : [],
  );
  return new Map(images.slice(-MAX_SUMMARY_IMAGES).map((b, i) => [b, i + 1]));
}

/** The most output tokens the summariser model may be asked for. */
export function summaryOutputLimit(summarizerModel: string): number {
  return modelInfo(summarizerModel).outputReserve;
}

/**
 * Target summary length: about 1/5 of the summarised tokens, at least {@link MIN_SUMMARY_TOKENS},
 * at most {@link MAX_SUMMARY_TARGET_TOKENS} and the output limit.
 */
export function summaryTargetTokens(sourceTokens: number, outputLimit: number): number {
  const target = Math.round(Math.max(0, sourceTokens) * SUMMARY_RATIO);
  return Math.max(1, Math.min(outputLimit, MAX_SUMMARY_TARGET_TOKENS, Math.max(MIN_SUMMARY_TOKENS, target)));
}

/** `max_tokens` for a target: room to overshoot by half (at least 512 tokens), capped by the limit. */
export function summaryMaxTokens(targetTokens: number, outputLimit: number): number {
  return Math.max(1, Math.min(outputLimit, Math.max(Math.ceil(targetTokens * 1.5), targetTokens + 512)));
}

/** A message too large for the summariser, named in the request and in the summary. */
export interface LeftOutMessage {
  readonly message: Message;
  readonly tokens: number;
}

/** Everything one summariser request is built from. */
export interface SummaryRequestInput {
  readonly model: string;
  /** The messages of this chunk, in order. */
  readonly messages: readonly Message[];
  /** Inclusive turn range of the whole region being summarised. */
  readonly regionTurns: readonly [number, number];
  /** 1-based chunk number and chunk count (1 of 1 when the region fits at once). */
  readonly chunk: number;
  readonly chunks: number;
  /** Summary of the region's earlier chunks (rolling), with the turns it covers. */
  readonly previous?: { readonly text: string; readonly turns: readonly [number, number] };
  /** The user's instructions of a manual compaction. */
  readonly instructions?: string;
  readonly targetTokens: number;
  readonly maxTokens: number;
  /** Messages of the region left out because they are too large. */
  readonly leftOut?: readonly LeftOutMessage[];
  /** The assistant's plan (update_plan), which survives the compaction: the summary refers to its steps. */
  readonly plan?: Plan;
}

/**
 * The plan's section of a summarise request: the plan survives the compaction as it is (the
 * survive step carries it), so the summary refers to its steps by number instead of copying it.
 */
export function planSection(plan: Plan): string {
  return `The assistant keeps this plan (update_plan). It stays in the assistant's context after the compaction as it is, so do not copy it: refer to its steps by number where the work relates to them (what was done for which step, what is left of the step in progress).\n<plan>\n${safe(planLines(plan))}\n</plan>`;
}

/** One line naming a left-out message: id, turn, role, what it held, its size. */
export function describeLeftOut(l: LeftOutMessage): string {
  const kinds = [
    ...new Set(
      l.message.blocks.map((b) =>
        b.type === 'tool_use' ? `tool call ${b.name}` : b.type === 'tool_result' ? 'tool result' : b.type,
      ),
    ),
  ].join(', ');
  return `${l.message.role} message ${l.message.id} of turn ${l.message.turn} (${kinds}, about ${l.tokens.toLocaleString('en-US')} tokens)`;
}

function range(r: readonly [number, number]): string {
  return `${r[0]}–${r[1]}`;
}

/** Text from the conversation, safe inside the summary request: our tags neutralised, lone surrogates replaced (the API refuses them). */
function safe(text: string): string {
  return neutralizeTags(toWellFormed(text), REQUEST_TAGS);
}

/**
 * Builds a valid Messages API request for one chunk: the system prompt, and one user message
 * with the transcript, the previous rolling summary, left-out messages, the user's
 * instructions and the target length. Never produces empty text.
 */
export function buildSummaryRequest(input: SummaryRequestInput): MessageCreateParamsNonStreaming {
  const first = input.messages[0]?.turn ?? input.regionTurns[0];
  const last = input.messages.at(-1)?.turn ?? input.regionTurns[1];
  const part =
    input.chunks > 1
      ? ` This is part ${input.chunk} of ${input.chunks} of turns ${range(input.regionTurns)}; it covers turns ${first}–${last}.`
      : '';
  const sections: string[] = [
    `Below is a transcript of turns ${range(input.regionTurns)} of a conversation between a user and an AI coding assistant.${part}`,
  ];
  if (input.previous) {
    sections.push(
      `Your summary of the earlier part of this stretch (turns ${range(input.previous.turns)}):\n<previous_summary turns="${input.previous.turns[0]}-${input.previous.turns[1]}">\n${safe(input.previous.text)}\n</previous_summary>`,
    );
  }
  const attached = attachedUserImages(input.messages);
  const transcript = renderTranscript(input.messages, attached);
  sections.push(`<transcript turns="${first}-${last}">\n${safe(transcript || '(no content)')}\n</transcript>`);
  const leftOut = input.leftOut ?? [];
  if (leftOut.length > 0) {
    sections.push(
      `These messages of the stretch were too large to include and are left out; say in the summary that they were dropped and what they were, as far as the transcript tells:\n${leftOut.map((l) => `- ${describeLeftOut(l)}`).join('\n')}`,
    );
  }
  if (input.plan) sections.push(planSection(input.plan));
  const task = [
    `Write the summary now, following your instructions. Aim for about ${input.targetTokens.toLocaleString('en-US')} tokens; never more than ${input.maxTokens.toLocaleString('en-US')}.`,
  ];
  if (input.previous)
    task.push(
      'Write one summary that covers both the previous summary and the transcript: it replaces the previous summary, so keep everything important from it.',
    );
  if (input.instructions?.trim()) {
    task.push(
      `The user asked for this compaction with these instructions; follow them when you choose what to keep:\n<user_instructions>\n${safe(input.instructions.trim())}\n</user_instructions>`,
    );
  }
  sections.push(task.join('\n'));
  return {
    model: input.model,
    max_tokens: input.maxTokens,
    system: SUMMARY_SYSTEM_PROMPT,
    messages: [{ role: 'user', content: [...imageContent(attached), { type: 'text', text: sections.join('\n\n') }] }],
  };
}

/** The attached images, each after a label the transcript refers to (images first: the vision guide's order). */
function imageContent(
  attached: ReadonlyMap<ImageBlock, number>,
): Array<
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: ImageBlock['mediaType']; data: string } }
> {
  return [...attached].flatMap(([b, n]) => [
    { type: 'text' as const, text: `[Image ${n}, pasted by the user in the transcript below]` },
    {
      type: 'image' as const,
      // As its bytes say (the request is not normalized): a mislabelled image would be refused.
      source: { type: 'base64' as const, media_type: sniffImageType(b.data) ?? b.mediaType, data: b.data },
    },
  ]);
}

/** Longest rendering, in characters, of each kind of content in the transcript. */
export const TRANSCRIPT_LIMITS = {
  userText: 8_000,
  injected: 4_000,
  assistantText: 16_000,
  toolInput: 2_000,
  toolResult: 12_000,
  thinking: 2_000,
} as const;

/** `text` cut to `max` characters: three quarters head, one quarter tail, with the cut stated. */
export function headTail(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = headChars(text, Math.floor(max * 0.75));
  const tail = text.slice(safeCutIndex(text, text.length - Math.floor(max * 0.25)));
  return `${head}\n[… ${(text.length - head.length - tail.length).toLocaleString('en-US')} characters cut …]\n${tail}`;
}

function resultText(content: ToolResultContent): string {
  if (typeof content === 'string') return content;
  return content.map((p) => (p.type === 'text' ? p.text : `[image: ${p.mediaType}]`)).join('\n');
}

function renderBlock(
  b: Block,
  role: Message['role'],
  toolNames: ReadonlyMap<string, string>,
  attached: ReadonlyMap<ImageBlock, number>,
): string {
  const L = TRANSCRIPT_LIMITS;
  switch (b.type) {
    case 'text':
      if (role === 'assistant') return `Assistant: ${headTail(b.text, L.assistantText)}`;
      if (b.meta.source === 'user') return `User: ${headTail(b.text, L.userText)}`;
      return `[Injected context]\n${headTail(b.text, L.injected)}`;
    case 'summary':
      return `[Earlier summary of turns ${b.turnRange[0]}–${b.turnRange[1]}]\n${b.text}`;
    case 'tool_use':
      return `Assistant called tool ${b.name} (${b.id}) with input: ${headTail(JSON.stringify(b.input) ?? 'null', L.toolInput)}`;
    case 'tool_result': {
      const name = toolNames.get(b.toolUseId) ?? 'a tool';
      return `Result of ${name} (${b.toolUseId})${b.isError ? ' [error]' : ''}:\n${headTail(resultText(b.content), L.toolResult)}`;
    }
    case 'thinking':
      return `Assistant (private reasoning): ${headTail(b.thinking, L.thinking)}`;
    case 'image': {
      const n = attached.get(b);
      return n === undefined
        ? `[image: ${b.mediaType}, ${Math.round((b.data.length * 3) / 4 / 1000)} KB]`
        : `[Image ${n}, attached above]`;
    }
    case 'server_tool':
      // The summary names the tools found, so a later request knows they exist (the references themselves go).
      return `Assistant (API server tool) ${describeServerBlock(b)}`;
  }
}

/**
 * The messages as a plain-text transcript: a header per message with its role and turn, then
 * each block (user words, injected context, assistant text, tool calls with their input,
 * tool results and thinking, each cut to a sane length; images named, or referred to by their
 * number when `attached` holds them).
 */
export function renderTranscript(
  messages: readonly Message[],
  attached: ReadonlyMap<ImageBlock, number> = new Map(),
): string {
  const toolNames = new Map<string, string>();
  for (const m of messages) for (const b of m.blocks) if (b.type === 'tool_use') toolNames.set(b.id, b.name);
  return messages
    .map((m) =>
      [
        `--- ${m.role === 'user' ? 'User message' : 'Assistant message'} (turn ${m.turn}) ---`,
        ...m.blocks.map((b) => renderBlock(b, m.role, toolNames, attached)),
      ].join('\n'),
    )
    .join('\n\n');
}
