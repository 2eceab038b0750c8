/**
 * Every case of the unseen-session sweep, by name (`NN-what-it-holds`): 43 transcripts derived
 * from the three real fixtures or built from scratch, each family in its own file.
 */
import { COMPACTION_CASES } from './casesCompactions';
import { IMAGE_CASES } from './casesImages';
import { MESSAGE_CASES } from './casesMessages';
import { RESULT_CASES } from './casesResults';
import { THINKING_CASES } from './casesThinking';
import { TOOL_INPUT_CASES } from './casesToolInputs';
import { USAGE_CASES } from './casesUsage';
import { WART_CASES } from './casesWarts';
import type { UnseenCase } from './context';

/** All cases, sorted by name; names are unique. */
export const UNSEEN_CASES: readonly UnseenCase[] = [
  ...RESULT_CASES,
  ...IMAGE_CASES,
  ...USAGE_CASES,
  ...THINKING_CASES,
  ...COMPACTION_CASES,
  ...WART_CASES,
  ...TOOL_INPUT_CASES,
  ...MESSAGE_CASES,
].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/** The cases whose name contains `only` (all of them when it is undefined). */
export function casesMatching(only?: string): UnseenCase[] {
  return UNSEEN_CASES.filter((c) => only === undefined || c.name.includes(only));
}
