/**
 * The crudest tokenizer: one token per four UTF-16 code units, rounded up. It needs no data,
 * so it is the fallback when js-tiktoken cannot be loaded, and the baseline of the bench.
 */
import type { Tokenizer } from '../platform/platformPorts';

/**
 * A `Tokenizer` that returns ceil(text.length / 4). Deterministic, O(1), never throws.
 * Named `chars/4` in reports.
 */
export const chars4Tokenizer: Tokenizer = {
  name: 'chars/4',
  count(text: string): number {
    return Math.ceil(text.length / 4);
  },
};
