/**
 * A `Tokenizer` backed by js-tiktoken (pure JS BPE). Claude's tokenizer is not public; an
 * OpenAI BPE is only a proxy whose ratio to Claude's counts (~1.2 on code and English) is
 * learned by the estimator (calibration.ts). The default encoding is cl100k_base, chosen by
 * measurement on the real fixture (`npm run bench -- estimate <file> --encoding o200k_base`
 * runs the comparison):
 *
 * - accuracy is a tie: the anchored estimator's error is median 0.025 % / p95 0.22 % with
 *   cl100k_base and 0.023 % / 0.19 % with o200k_base (unbiased variant: 0.010 / 0.077 vs
 *   0.009 / 0.075); both count this session within 0.5 % of each other;
 * - cl100k_base costs half: 1.1 MB of ranks instead of 2.3 MB in dist/tokenizer.js, ~0.3 s
 *   instead of ~0.55 s to build the rank table, ~30 MB less heap.
 *
 * This is the only module of src/core that imports js-tiktoken, and nothing in src/core
 * imports this module statically: the host loads it through dist/tokenizer.js
 * (src/host/tokenizerBundle.ts, src/host/tokenizerLoader.ts).
 */
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import cl100kBase from 'js-tiktoken/ranks/cl100k_base';
import type { Tokenizer } from '../platform/platformPorts';

/** The encodings this module bundles. Others can be passed as `TiktokenRanks`. */
export type BundledEncoding = 'cl100k_base';

/** Rank data of another js-tiktoken encoding (e.g. `js-tiktoken/ranks/o200k_base`), with its name. */
export interface TiktokenRanks {
  readonly name: string;
  readonly ranks: TiktokenBPE;
}

/**
 * Runs longer than this many characters of one class (letters, whitespace, punctuation) are
 * counted in pieces: js-tiktoken's byte-pair merge is quadratic in the length of one regex
 * piece, and a minified file or a base64 blob would otherwise stall the extension host.
 * Cutting inside such a run can only add tokens (never fewer), which suits an estimate.
 */
const MAX_RUN = 32;
const LONG_RUN = new RegExp(`\\p{L}{${MAX_RUN}}|\\s{${MAX_RUN}}|[^\\s\\p{L}\\p{N}]{${MAX_RUN}}`, 'gu');

const encoders = new WeakMap<TiktokenBPE, Tiktoken>();

function encoderFor(ranks: TiktokenBPE): Tiktoken {
  let enc = encoders.get(ranks);
  if (!enc) {
    enc = new Tiktoken(ranks);
    encoders.set(ranks, enc);
  }
  return enc;
}

/** Tokens of `text`; special-token strings such as `<|endoftext|>` count as plain text. */
function countWith(enc: Tiktoken, text: string): number {
  let total = 0;
  let start = 0;
  LONG_RUN.lastIndex = 0;
  for (let m = LONG_RUN.exec(text); m !== null; m = LONG_RUN.exec(text)) {
    const end = m.index + m[0].length;
    total += enc.encode(text.slice(start, end), [], []).length;
    start = end;
  }
  if (start < text.length) total += enc.encode(start === 0 ? text : text.slice(start), [], []).length;
  return total;
}

/**
 * Creates a `Tokenizer` counting with js-tiktoken. `encoding` defaults to cl100k_base (see
 * the module comment for why); pass `{ name, ranks }` to use another rank file. Building the
 * rank table takes a few hundred ms once per rank object (memoised); `count` is then
 * deterministic, never throws, and treats special-token strings as ordinary text.
 */
export function createTiktokenTokenizer(encoding: BundledEncoding | TiktokenRanks = 'cl100k_base'): Tokenizer {
  const name = typeof encoding === 'string' ? encoding : encoding.name;
  const ranks = typeof encoding === 'string' ? cl100kBase : encoding.ranks;
  const enc = encoderFor(ranks);
  return {
    name,
    count(text: string): number {
      return text.length === 0 ? 0 : countWith(enc, text);
    },
  };
}
