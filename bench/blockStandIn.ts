/**
 * Stand-ins for content blocks a transcript may hold (they are valid Messages API
 * `ContentBlockParam`s: `document`, `search_result`, `server_tool_use`, `web_search_tool_result`,
 * code-execution results, an image from a URL, …) that the core conversation model cannot carry.
 * A replay must not stop at a session we have not seen, so each becomes a text block holding
 * its JSON, long strings cut, so its size in the prompt stays about what it was; the replay
 * reports how many blocks of each type stood in.
 */
import { headChars } from '../src/core/platform/text';

/** The longest string of a stood-in block kept whole, in characters. */
export const STAND_IN_STRING_CHARS = 2_000;

/** Block types stood in as text, with their counts: filled by parseTranscript. */
export type StandIns = Map<string, number>;

function shortened(v: unknown): unknown {
  if (typeof v === 'string')
    return v.length <= STAND_IN_STRING_CHARS
      ? v
      : `${headChars(v, STAND_IN_STRING_CHARS)}… (${(v.length - STAND_IN_STRING_CHARS).toLocaleString('en-US')} more characters)`;
  if (Array.isArray(v)) return v.map(shortened);
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shortened(x)]));
  return v;
}

/** The text standing in for block `b` of type `type`; counts it in `into`. */
export function standInText(type: string, b: unknown, into?: StandIns): string {
  into?.set(type, (into.get(type) ?? 0) + 1);
  return `[${type} block of the original session, replayed as text] ${JSON.stringify(shortened(b))}`;
}

/** `standIns` as one line, e.g. `document ×2, server_tool_use ×1`; empty when none. */
export function describeStandIns(standIns: ReadonlyMap<string, number>): string {
  return [...standIns].map(([t, n]) => `${t} ×${n}`).join(', ');
}
