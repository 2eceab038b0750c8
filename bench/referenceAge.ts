/**
 * How recent the references FRR counts are (frr.ts): of the identifiers the next answers
 * referenced, the share whose latest earlier mention lies within the newest `tail` tokens of
 * the session's messages before the request. A property of the transcript, not of a policy:
 * it says how much of a session's recall any recency-keeping policy can hold by its protected
 * tail alone. Real sessions refer mostly to what they just read or wrote; a session whose answers mention
 * identifiers drawn at random from a small vocabulary "refers" to old text by chance as often
 * as to new, and its FRR measures how much text a policy keeps rather than what it keeps.
 * Mentions are found as forwardReferences finds them (the retention check's extraction, per
 * message); tokens as the replay counts them (calibrated, the transcript's own calibration).
 */
import { extractIdentifiers } from '../src/core/compaction/retention';
import { calibratedMessageTokens } from '../src/core/tokens/calibratedTokens';
import { FRR_KINDS } from './frr';
import type { PreparedTranscript } from './replayCore';

/**
 * The share of `t`'s forward references last mentioned within the newest `tail` tokens of the
 * messages before their request (a mention in a message that ends inside that span counts);
 * `null` when nothing was referenced.
 */
export function recentReferenceShare(t: PreparedTranscript, tail: number): number | null {
  // Where each identifier was last mentioned: the token position at the end of that message.
  const lastSeen = new Map<string, number>();
  let position = 0;
  let referenced = 0;
  let recent = 0;
  t.events.forEach((e, i) => {
    if (e.kind === 'message') {
      position += calibratedMessageTokens(e.message, t.tokenizer, t.calibration);
      const ids = extractIdentifiers([e.message]);
      for (const kind of FRR_KINDS) for (const id of ids[kind].keys()) lastSeen.set(`${kind}\u0000${id}`, position);
      return;
    }
    if (e.kind !== 'usage') return;
    for (const r of t.references.get(i) ?? []) {
      const at = lastSeen.get(`${r.kind}\u0000${r.id}`);
      if (at === undefined) continue;
      referenced++;
      if (position - at <= tail) recent++;
    }
  });
  return referenced === 0 ? null : recent / referenced;
}
