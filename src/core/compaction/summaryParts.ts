/**
 * A summary block's text taken apart for a person. The model reads the whole text as
 * summaryText and recallFooter compose it: the heading naming the turns, the summariser's own
 * prose, the messages left out as too large, notes on where the user's words stand, the
 * in-turn note, and the footer with the compaction id, the recall instructions and the
 * identifiers the summary did not carry. The chat's summary card shows the prose, and the
 * left-out messages and lost identifiers in words; the rest is for the model only. Works on
 * summaries saved by earlier versions too (the notes they wrote are recognised). Pure.
 */
import { isOwnName } from './retention';
import {
  FOOTER_START,
  IN_TURN_NOTE,
  IN_TURN_NOTE_BEFORE_0_7_1,
  LEFT_OUT_HEADING,
  LOST_LINE_START,
  USER_WORDS_BEFORE_NOTE,
  USER_WORDS_NOTE,
  stripHeading,
} from './summaryReplacement';

/** What a person reads of a summary. */
export interface SummaryParts {
  /** The summariser's own prose (Markdown), without the heading and the model-facing notes. */
  readonly prose: string;
  /** Messages left out of the summary because they were too large to summarise. */
  readonly leftOut: readonly string[];
  /** Identifiers of the originals the summary does not carry, as the footer lists them (our own names left out). */
  readonly lost: readonly string[];
  /** How many more the footer counted beyond those it listed. */
  readonly lostMore: number;
}

/** Model-facing notes a summary may end with, newest wording first. */
const TRAILING_NOTES = [IN_TURN_NOTE, IN_TURN_NOTE_BEFORE_0_7_1, USER_WORDS_BEFORE_NOTE, USER_WORDS_NOTE];

/** The identifiers of the footer's "not carried" line, and its "(and N more)". */
function parseLostLine(line: string): { lost: string[]; more: number } {
  const listed = [...line.slice(LOST_LINE_START.length).matchAll(/`([^`]*)`/g)].map((m) => m[1] as string);
  const more = /\(and (\d+) more\)\.?\s*$/.exec(line);
  return { lost: listed.filter((id) => id && !isOwnName(id)), more: more ? Number(more[1]) : 0 };
}

/** Takes a summary block's text apart (see the file's comment). */
export function summaryParts(text: string): SummaryParts {
  let rest = text;
  let lost: string[] = [];
  let lostMore = 0;
  const footer = rest.lastIndexOf(`\n\n${FOOTER_START}`);
  if (footer >= 0) {
    const lostLine = rest
      .slice(footer)
      .split('\n')
      .find((l) => l.startsWith(LOST_LINE_START));
    if (lostLine) ({ lost, more: lostMore } = parseLostLine(lostLine));
    rest = rest.slice(0, footer);
  }
  for (let again = true; again;) {
    again = false;
    rest = rest.trimEnd();
    for (const note of TRAILING_NOTES)
      if (rest.endsWith(note)) {
        rest = rest.slice(0, -note.length);
        again = true;
      }
  }
  let leftOut: string[] = [];
  const left = rest.lastIndexOf(`\n\n${LEFT_OUT_HEADING}\n`);
  if (left >= 0) {
    leftOut = rest
      .slice(left + LEFT_OUT_HEADING.length + 3)
      .split('\n')
      .filter((l) => l.startsWith('- '))
      .map((l) => l.slice(2));
    rest = rest.slice(0, left);
  }
  return { prose: stripHeading(rest), leftOut, lost, lostMore };
}
