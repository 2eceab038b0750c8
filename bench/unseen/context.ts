/**
 * What a case of the unseen-session generator is and gets: a name, and a builder that turns
 * the fixtures (read fresh), its own seeded PRNG and the token estimate into the records of
 * one transcript.
 */
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';
import type { Tokenizer } from '../../src/core/platform/platformPorts';
import { MessageEstimate } from './estimate';
import { FIXTURES_DIR, loadFixture, type FixtureName } from './fixtures';
import { Rng } from './random';
import type { TranscriptRecord } from './records';
import { Session, type SessionOptions } from './session';
import { fillUsage, type FillOptions } from './usage';

/** What a case builds with. */
export interface CaseContext {
  /** The token estimate the usage is computed with. */
  readonly estimate: MessageEstimate;
  /** A fixture's records, read fresh (the case may change them in place). */
  fixture(name: FixtureName): TranscriptRecord[];
  /** A PRNG of a seed: each case seeds its own, so it is the same alone or among the others. */
  rng(seed: number): Rng;
  /** A session built from scratch, drawing from `rng`. */
  session(rng: Rng, opts: SessionOptions): Session;
  /** Fills the usage of derived and added requests (usage.ts); returns `records`. */
  fill(records: TranscriptRecord[], opts?: FillOptions): TranscriptRecord[];
}

/** One generated transcript: its name (the file is `<name>.transcript.jsonl`) and how to build it. */
export interface UnseenCase {
  readonly name: string;
  /** Builds the records; deterministic (the same records on every call). */
  readonly build: (ctx: CaseContext) => TranscriptRecord[];
}

/** The context the cases build with: the cl100k_base tokenizer by default, the fixtures of `fixturesDir`. */
export function caseContext(tokenizer: Tokenizer = createTiktokenTokenizer(), fixturesDir = FIXTURES_DIR): CaseContext {
  const estimate = new MessageEstimate(tokenizer);
  return {
    estimate,
    fixture: (name) => loadFixture(name, estimate, fixturesDir),
    rng: (seed) => new Rng(seed),
    session: (rng, opts) => new Session(estimate, rng, opts),
    fill: (records, opts) => fillUsage(records, estimate, opts),
  };
}
