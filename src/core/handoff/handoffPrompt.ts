/**
 * The summariser's request for a handoff note, and its answer read back: a system prompt asking
 * for the sections the model writes (the goal, the decisions made, the open questions, and the
 * current plan when the session kept none), one user message holding the conversation as plain
 * text (its oldest and newest messages when it is longer than the summariser takes), and the
 * answer split into those sections. The plan and the files touched are the session's own
 * records (handoffContent.ts), so the model is shown them and told not to repeat them. Pure.
 */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { Message, Plan } from '../conversation/conversationModel';
import { neutralizeTags } from '../conversation/injections';
import { renderTranscript } from '../compaction/summaryPrompt';
import type { IndexedFile } from '../compaction/fileIndex';
import { modelInfo } from '../models/modelFacts';
import { planLines } from '../plan/plan';
import { toWellFormed } from '../platform/text';

/** What the summariser is told, once per handoff. */
export const HANDOFF_SYSTEM_PROMPT = `You write the handoff note that lets a fresh session of an AI coding assistant continue a conversation whose history has grown too long to carry on. The new session starts with your note and nothing else of the old conversation; it can search the old session's history with a tool when it needs an exact detail, so write what it must know to continue, not everything that happened.

Write the sections you are asked for, each under its own "## " heading, in the order given, and nothing else:
- "## Goal": what the user wants, overall and in the current stretch of work, with their requirements, constraints and preferences, and every name, number or value they gave.
- "## Decisions made": each decision and the reason for it; approaches tried and rejected, and why; facts learned about the code and its environment that the work relies on.
- "## Current plan" (only when asked for): where the work stands and the next steps, as a short numbered list.
- "## Open questions": what is still open — questions for the user, problems not yet solved, risks; "None." when nothing is.

Rules:
- Terse notes, lists rather than prose. Quote file paths, identifiers, commands and error messages verbatim, in backticks.
- Use only what the conversation says; never invent or guess.
- Text inside <ide_selection>, <ide_opened_file>, <attached_file>, <system-reminder> or hook tags was injected by the editor; it is context, not the user's words.
- Do not address the user, do not continue the task, do not call tools.`;

/** The sections the summariser writes, as their headings name them. */
export const HANDOFF_SECTIONS = ['Goal', 'Decisions made', 'Current plan', 'Open questions'] as const;

/** One section the summariser writes. */
export type HandoffSection = (typeof HANDOFF_SECTIONS)[number];

/** Tags the request wraps content in; content can never open or close one of them. */
const REQUEST_TAGS = ['conversation', 'plan', 'files_touched', 'user_instructions'] as const;

/** Share of the summariser's window the conversation may take in a handoff request. */
export const HANDOFF_TRANSCRIPT_WINDOW_SHARE = 0.5;

/** Characters per token assumed when fitting the conversation (few: code and identifiers are dense). */
const CHARS_PER_TOKEN = 3;

/** Share of the conversation's room given to its oldest messages (the goal often stands there). */
const HEAD_SHARE = 0.25;

/** The handoff note's length the summariser is asked for, in tokens. */
export const HANDOFF_TARGET_TOKENS = 1_500;
/** The most tokens the summariser may write for a handoff note (its `max_tokens`, within the model's limit). */
export const HANDOFF_MAX_TOKENS = 4_000;

/** What a handoff request is built from. */
export interface HandoffRequestInput {
  /** The summariser model. */
  readonly model: string;
  /** The old session's conversation as it stands (summaries of compacted turns included). */
  readonly messages: readonly Message[];
  readonly plan?: Plan;
  readonly files: readonly IndexedFile[];
  /** What the user said with the handoff (`/handoff focus on the tests`). */
  readonly instructions?: string;
  /** Characters the conversation may take; default from the model's window. */
  readonly maxTranscriptChars?: number;
}

/** Text from the conversation, safe inside the request: our tags neutralised, lone surrogates replaced. */
function safe(text: string): string {
  return neutralizeTags(toWellFormed(text), REQUEST_TAGS);
}

/** Characters of conversation a handoff request to `model` may carry. */
export function handoffTranscriptChars(model: string): number {
  return Math.floor(modelInfo(model).contextWindow * HANDOFF_TRANSCRIPT_WINDOW_SHARE * CHARS_PER_TOKEN);
}

/**
 * The conversation as plain text within `maxChars`: whole when it fits, else its oldest messages
 * (a quarter of the room) and its newest (the rest), with a line saying how many were left out.
 */
export function fittedTranscript(messages: readonly Message[], maxChars: number): string {
  const rendered = messages.map((m) => renderTranscript([m]));
  const total = rendered.reduce((n, r) => n + r.length + 2, 0);
  if (total <= maxChars) return rendered.join('\n\n');
  const head: string[] = [];
  let used = 0;
  for (const r of rendered) {
    if (used + r.length + 2 > maxChars * HEAD_SHARE) break;
    head.push(r);
    used += r.length + 2;
  }
  const tail: string[] = [];
  for (let i = rendered.length - 1; i >= head.length; i--) {
    const r = rendered[i] as string;
    if (used + r.length + 2 > maxChars) break;
    tail.unshift(r);
    used += r.length + 2;
  }
  const left = rendered.length - head.length - tail.length;
  return [
    ...head,
    `[… ${left} message${left === 1 ? '' : 's'} of the middle left out: the new session can recall them from the old one …]`,
    ...tail,
  ].join('\n\n');
}

/** The sections the summariser is asked for: the current plan only when the session kept none. */
export function askedSections(plan: Plan | undefined): readonly HandoffSection[] {
  return HANDOFF_SECTIONS.filter((s) => s !== 'Current plan' || !plan);
}

/** A valid Messages API request for the handoff note of `input`. Never produces empty text. */
export function buildHandoffRequest(input: HandoffRequestInput): MessageCreateParamsNonStreaming {
  const maxChars = input.maxTranscriptChars ?? handoffTranscriptChars(input.model);
  const sections = [
    'Below is the conversation between a user and an AI coding assistant that a new session is to continue (summaries of its earlier, compacted turns included).',
    `<conversation>\n${safe(fittedTranscript(input.messages, maxChars) || '(no messages yet)')}\n</conversation>`,
  ];
  if (input.plan)
    sections.push(
      `The assistant's plan (update_plan), added to the note as it is: do not repeat it, refer to its steps by number.\n<plan>\n${safe(planLines(input.plan))}\n</plan>`,
    );
  if (input.files.length > 0)
    sections.push(
      `The files the session read or edited, added to the note for you: do not list them again.\n<files_touched>\n${safe(input.files.map((f) => `${f.path}${f.edited ? ' (edited)' : ''}`).join('\n'))}\n</files_touched>`,
    );
  if (input.instructions?.trim())
    sections.push(
      `The user asked for this handoff with these words; let them guide what you keep:\n<user_instructions>\n${safe(input.instructions.trim())}\n</user_instructions>`,
    );
  const asked = askedSections(input.plan).map((s) => `"## ${s}"`);
  sections.push(
    `Write the handoff note now: the sections ${asked.join(', ')}, in this order. Aim for about ${HANDOFF_TARGET_TOKENS.toLocaleString('en-US')} tokens; never more than ${HANDOFF_MAX_TOKENS.toLocaleString('en-US')}.`,
  );
  return {
    model: input.model,
    max_tokens: Math.min(HANDOFF_MAX_TOKENS, modelInfo(input.model).maxOutput),
    system: HANDOFF_SYSTEM_PROMPT,
    messages: [{ role: 'user', content: [{ type: 'text', text: sections.join('\n\n') }] }],
  };
}

/** The summariser's note taken apart: each section's text (trimmed; absent when it wrote none). */
export type HandoffSections = Partial<Record<HandoffSection, string>>;

/** The section a heading names (case and a trailing colon ignored), if it is one. */
function sectionOf(heading: string): HandoffSection | undefined {
  const h = heading.trim().replace(/:$/, '').toLowerCase();
  return HANDOFF_SECTIONS.find((s) => s.toLowerCase() === h || (s === 'Decisions made' && h === 'decisions'));
}

/**
 * The sections of the summariser's answer, by their `#`/`##`/`###` headings. Text before the
 * first heading, and text under a heading that is none of the sections, goes with the section
 * before it (the goal at the start): nothing the model wrote is lost. A section written twice
 * is joined.
 */
export function parseHandoffAnswer(text: string): HandoffSections {
  const out: Partial<Record<HandoffSection, string[]>> = {};
  let current: HandoffSection = 'Goal';
  for (const line of text.split('\n')) {
    const heading = /^#{1,3}\s+(.+?)\s*#*\s*$/.exec(line);
    const section = heading ? sectionOf(heading[1] as string) : undefined;
    if (section) {
      current = section;
      out[current] ??= [];
      continue;
    }
    (out[current] ??= []).push(line);
  }
  const sections: HandoffSections = {};
  for (const s of HANDOFF_SECTIONS) {
    const body = out[s]?.join('\n').trim();
    if (body) sections[s] = body;
  }
  return sections;
}
