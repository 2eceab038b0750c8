/**
 * What a handoff carries to the new session, and the message it becomes: the goal, the
 * decisions made and the open questions (the summariser's), the current plan (the session's
 * own, else the summariser's), the files touched (computed from the session's tool calls and
 * re-attach reminders, compacted ones included) and where the old session is (its title and
 * id, which `recall` searches). When the summariser failed, the note is built from what the
 * session records — the plan, the files touched, the user's last messages — and says so. Pure.
 */
import type { CompactionRecord } from '../compaction/types';
import { fileIndex, type IndexedFile } from '../compaction/fileIndex';
import { isUserWords } from '../compaction/regions';
import type { Message, Plan } from '../conversation/conversationModel';
import { neutralizeUntrusted } from '../conversation/injections';
import { planLines } from '../plan/plan';
import { headChars, toWellFormed } from '../platform/text';
import type { ContinuedFrom } from '../session/entries';
import type { HandoffSections } from './handoffPrompt';

/** The session being handed off, as the handoff reads it. */
export interface HandoffSource {
  readonly sessionId: string;
  /** Its display title (the user's, else its first words). */
  readonly title: string;
  /** Its conversation as it stands. */
  readonly messages: readonly Message[];
  /** Its compactions, oldest first (their originals hold the files touched before them). */
  readonly compactions: readonly { readonly record: CompactionRecord }[];
  readonly plan?: Plan;
}

/** The handoff note's parts. */
export interface HandoffContent {
  readonly from: ContinuedFrom;
  readonly goal: string;
  readonly decisions: string;
  /** The session's plan, carried as it is. */
  readonly plan?: Plan;
  /** The summariser's current plan, when the session kept none. */
  readonly planText?: string;
  /** Files touched, edited ones first, then the most recent. */
  readonly files: readonly IndexedFile[];
  readonly openQuestions: string;
  /** What the user said with the handoff. */
  readonly instructions?: string;
  /** Who wrote the goal, decisions and questions: the summariser model, or why it could not. */
  readonly writer: { readonly model: string } | { readonly failed: string };
  /** What the summariser's request cost (0 when none was made or its price is unknown). */
  readonly costUsd: number;
  /** Set when the summariser's price is unknown: what the note cost is not known (`costUsd` is 0). */
  readonly costUnknown?: true;
}

/** The title of a session handed off to: the old one's, marked as continued (once, however long the chain). */
export function continuedTitle(title: string): string {
  return `${title.replace(/ \(continued\)$/, '')} (continued)`;
}

/** Most files a handoff names. */
export const HANDOFF_MAX_FILES = 40;

/** How many of the user's last messages a note built without the summariser quotes. */
export const FALLBACK_USER_MESSAGES = 3;
/** The characters of each such message the note quotes at most. */
export const FALLBACK_MESSAGE_CHARS = 1_500;

/**
 * The files the session read or edited (by successful tool calls, a shell command's reads and
 * writes, and the files re-attach reminders named), over its compacted history and its
 * conversation: edited ones first, each group most recent first, at most `max`.
 */
export function touchedFiles(source: HandoffSource, max = HANDOFF_MAX_FILES): IndexedFile[] {
  const history = [...source.compactions.flatMap((c) => c.record.originals), ...source.messages];
  const all = fileIndex(history, [], new Set(), Number.MAX_SAFE_INTEGER);
  return [...all.filter((f) => f.edited), ...all.filter((f) => !f.edited)].slice(0, max);
}

/** The user's own words of `messages`, newest last (injected context left out). */
function userWords(messages: readonly Message[]): string[] {
  return messages.flatMap((m) =>
    m.role === 'user'
      ? m.blocks.flatMap((b) => (b.type === 'text' && isUserWords(b) && b.text.trim() ? [b.text.trim()] : []))
      : [],
  );
}

/** The note's parts from the summariser's sections (a section it left out says so). */
export function contentFromSections(
  source: HandoffSource,
  sections: HandoffSections,
  opts: {
    readonly model: string;
    readonly costUsd: number;
    readonly costUnknown?: true;
    readonly instructions?: string;
  },
): HandoffContent {
  const missing = '(The summariser wrote nothing here: recall it from the old session if it matters.)';
  return {
    from: { sessionId: source.sessionId, title: source.title },
    goal: sections.Goal ?? missing,
    decisions: sections['Decisions made'] ?? missing,
    ...(source.plan ? { plan: source.plan } : { planText: sections['Current plan'] ?? 'No plan was recorded.' }),
    files: touchedFiles(source),
    openQuestions: sections['Open questions'] ?? 'None recorded.',
    ...(opts.instructions?.trim() ? { instructions: opts.instructions.trim() } : {}),
    writer: { model: opts.model },
    costUsd: opts.costUsd,
    ...(opts.costUnknown ? { costUnknown: true } : {}),
  };
}

/**
 * The note's parts without the summariser (it failed: `reason`): the user's last messages stand
 * for the goal, the decisions and questions are left to `recall`, the plan and files are the
 * session's own.
 */
export function fallbackContent(
  source: HandoffSource,
  reason: string,
  opts: { readonly costUsd?: number; readonly costUnknown?: true; readonly instructions?: string } = {},
): HandoffContent {
  const words = userWords([...source.compactions.flatMap((c) => c.record.originals), ...source.messages]);
  const last = [...new Set(words.slice(-FALLBACK_USER_MESSAGES * 2))].slice(-FALLBACK_USER_MESSAGES);
  const quoted = last.map((w) => {
    const cut = headChars(w, FALLBACK_MESSAGE_CHARS);
    return `> ${(cut.length < w.length ? `${cut}…` : cut).split('\n').join('\n> ')}`;
  });
  return {
    from: { sessionId: source.sessionId, title: source.title },
    goal:
      quoted.length > 0
        ? `The user's last messages in the old session, oldest first:\n\n${quoted.join('\n\n')}`
        : 'Not known: the old session holds no words of the user.',
    decisions: 'Not recorded: recall them from the old session (search for the subject at hand).',
    ...(source.plan ? { plan: source.plan } : { planText: 'No plan was recorded.' }),
    files: touchedFiles(source),
    openQuestions: 'Not known: ask the user what to do next if the messages above do not say.',
    ...(opts.instructions?.trim() ? { instructions: opts.instructions.trim() } : {}),
    writer: { failed: reason },
    costUsd: opts.costUsd ?? 0,
    ...(opts.costUnknown ? { costUnknown: true } : {}),
  };
}

/**
 * `text` (the summariser's, or the old conversation's) safe in the note: well formed, and the
 * tags the pipeline wraps injected and untrusted content in neutralised, so nothing the old
 * session read can pose as the editor's context or a reminder in the new one.
 */
function safe(text: string): string {
  return neutralizeUntrusted(toWellFormed(text));
}

/** The files touched as the note lists them: edited ones, then the ones only read. */
function filesSection(files: readonly IndexedFile[]): string {
  if (files.length === 0) return 'None recorded.';
  const list = (fs: readonly IndexedFile[]) => fs.map((f) => `- \`${safe(f.path).replace(/`/g, "'")}\``).join('\n');
  const edited = files.filter((f) => f.edited);
  const read = files.filter((f) => !f.edited);
  return [
    ...(edited.length > 0 ? [`Edited:\n${list(edited)}`] : []),
    ...(read.length > 0 ? [`Read:\n${list(read)}`] : []),
  ].join('\n\n');
}

/** The old session as the note names it: its title and id. */
function fromWords(from: ContinuedFrom): string {
  return `"${safe(from.title).replace(/["\n]/g, ' ')}" (${from.sessionId})`;
}

/**
 * The handoff message: the new session's first message. Sections in a fixed order — goal,
 * decisions made, current plan, files touched, open questions, the old session and how to
 * search it — then the user's words for the handoff, if any, and what to do now.
 */
export function handoffText(c: HandoffContent): string {
  const who =
    'model' in c.writer
      ? `The goal, the decisions and the open questions were written by ${c.writer.model} from that session's conversation; the plan and the files touched are the session's own records.`
      : `The summariser could not write this note (${safe(c.writer.failed)}), so it was built from what the old session records: its plan, the files it touched and the user's last messages.`;
  const plan = c.plan ? planLines(c.plan) : safe(c.planText ?? 'No plan was recorded.');
  const parts = [
    `# Handoff from an earlier session`,
    `This session continues the session ${fromWords(c.from)}, whose history had grown too long to carry on. ${who}`,
    `## Goal\n${safe(c.goal)}`,
    `## Decisions made\n${safe(c.decisions)}`,
    `## Current plan\n${plan}`,
    `## Files touched\n${filesSection(c.files)}`,
    `## Open questions\n${safe(c.openQuestions)}`,
    `## The old session\nIts whole history stays searchable: call \`recall\` with a query (a file name, a symbol, an error message) to find what it said, read or ran; its hits name the old session (${c.from.sessionId}). Search it before redoing work or guessing a detail this note lacks.`,
    ...(c.instructions ? [`## The user's words for this handoff\n${toWellFormed(c.instructions)}`] : []),
    'Continue the work from here. If an open question needs the user first, ask it; otherwise go on with the plan.',
  ];
  return parts.join('\n\n');
}
