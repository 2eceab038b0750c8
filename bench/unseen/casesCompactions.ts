/**
 * Unseen sessions with the original agent's compaction records where the fixtures have none
 * (family 07): one at the very start, two in a row (the second empty), one with a 200k-character
 * summary, one as the last record; and early manual compactions of small contexts with long
 * summaries, which the replay's summary-length model learns from (~40 % of the region).
 */
import type { UnseenCase } from './context';
import { insertionPoint } from './fixtures';

const startDoubleHuge: UnseenCase = {
  name: '07-compactions-start-double-huge',
  build: (ctx) => {
    const rng = ctx.rng(701);
    const records = ctx.fixture('pi');
    const summary = (n: number) => `Summary of earlier work.\n${rng.text(n, 'prose')}`;
    records.unshift({ kind: 'compaction', summary: summary(3000), tokensBefore: 150_000 });
    const i = insertionPoint(records, 80);
    records.splice(
      i,
      0,
      { kind: 'compaction', summary: summary(2000), tokensBefore: 120_000 },
      { kind: 'compaction', summary: '', tokensBefore: 0 },
    );
    const j = insertionPoint(records, 150);
    records.splice(j, 0, { kind: 'compaction', summary: summary(200_000), tokensBefore: 60_000 });
    records.push({ kind: 'compaction', summary: summary(1000), tokensBefore: 90_000 });
    return ctx.fill(records);
  },
};

const smallLongSummaries: UnseenCase = {
  name: '07-small-compactions-long-summaries',
  build: (ctx) => {
    const rng = ctx.rng(702);
    const records = ctx.fixture('sonnet');
    for (const n of [20, 150, 300])
      records.splice(insertionPoint(records, n), 0, {
        kind: 'compaction',
        summary: `Summary.\n${rng.text(24_000, 'prose')}`,
        tokensBefore: 15_000,
      });
    return ctx.fill(records);
  },
};

/** Family 07: several compaction records, at the start, in a row, empty, huge, last; small regions with long summaries. */
export const COMPACTION_CASES: readonly UnseenCase[] = [startDoubleHuge, smallLongSummaries];
