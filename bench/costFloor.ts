/**
 * The cost floor of a transcript: what its requests would cost if each paid only for what no
 * context policy can avoid — the unseen system prompt and tools read from the cache (written
 * once, by the first request), every message written to the cache once, when it is new (at
 * its size in the transcript), and the answer's output tokens. History costs nothing here, so
 * no policy that sends each new message whole can go below it (the arrival guards, which spill
 * large results to files, may: on a round of many large results the replay can come in under
 * it); the replay prints it beside the baseline so "cost ÷ baseline" reads against what was
 * possible.
 * Priced per request by the transcript's model, 5-minute cache writes.
 */
import type { Calibration } from '../src/core/tokens/calibration';
import type { Tokenizer } from '../src/core/platform/platformPorts';
import { calibratedMessageTokens } from '../src/core/tokens/calibratedTokens';
import { CostTally } from './pricing';
import type { TranscriptEvent } from './transcript';

/** The floor's tally over `events` (see the module comment); `overhead`: tokens of the unseen system prompt and tools. */
export function costFloor(
  events: readonly TranscriptEvent[],
  tokenizer: Tokenizer,
  calibration: Calibration,
  overhead: number,
): CostTally {
  const floor = new CostTally();
  let fresh = 0;
  let first = true;
  for (const e of events) {
    if (e.kind === 'message') fresh += calibratedMessageTokens(e.message, tokenizer, calibration);
    if (e.kind !== 'usage' || !e.usage) continue;
    floor.add(
      e.model,
      {
        input_tokens: 0,
        cache_read_input_tokens: first ? 0 : overhead,
        cache_creation_input_tokens: Math.round(fresh + (first ? overhead : 0)),
        output_tokens: e.usage.output_tokens,
      },
      '5m',
    );
    fresh = 0;
    first = false;
  }
  return floor;
}
