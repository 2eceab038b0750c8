/**
 * Unseen sessions whose usage records or model ids are unusual (families 05, 10, 13, 17): no
 * usage record at all, every usage `null`, no `at`, no cache fields, `at` going backwards and
 * a usage before the first message; a Claude Code session under a 25k or 45k heavier system
 * prompt; model switches mid-session (with a non-Anthropic stretch of `null` usage); and a
 * session logged with Bedrock, OpenRouter and Vertex AI model ids.
 */
import type { UnseenCase } from './context';
import type { TranscriptRecord } from './records';
import { promptOf } from './usage';

const noUsageRecords: UnseenCase = {
  name: '05-no-usage-records',
  build: (ctx) => ctx.fixture('sonnet').filter((r) => r.kind !== 'usage'),
};

const allUsageNull: UnseenCase = {
  name: '05-all-usage-null',
  build: (ctx) =>
    ctx.fixture('sonnet').map((r) => (r.kind === 'usage' ? { ...r, usage: null, plan: { keep: true } } : r)),
};

const noAt: UnseenCase = {
  name: '05-no-at',
  build: (ctx) =>
    ctx.fixture('pi').map((r): TranscriptRecord => {
      if (r.kind !== 'usage') return r;
      const { at: _at, ...rest } = r;
      return rest;
    }),
};

const noCacheFields: UnseenCase = {
  name: '05-no-cache-fields',
  build: (ctx) =>
    ctx.fixture('cc').map((r) =>
      r.kind === 'usage' && r.usage
        ? {
            ...r,
            plan: { keep: true },
            usage: { input_tokens: promptOf(r.usage), output_tokens: r.usage.output_tokens },
          }
        : r,
    ),
};

const atBackwards: UnseenCase = {
  name: '05-at-backwards-usage-first',
  build: (ctx) => {
    // `at` going backwards, repeated, and with a zone offset; a usage before the first message.
    const records = ctx.fixture('sonnet');
    records.forEach((r, i) => {
      if (r.kind === 'usage' && i % 7 === 0) r.at = '2025-01-01T00:00:00+02:00';
    });
    records.unshift({
      kind: 'usage',
      model: 'claude-sonnet-4-5',
      at: '2025-11-20T23:30:00.000Z',
      usage: {},
      plan: { fresh: true },
    });
    return ctx.fill(records);
  },
};

const systemHeavy: UnseenCase[] = [25_000, 45_000].map((extra) => ({
  name: `10-system-heavy-plus${extra / 1000}k-cc`,
  // The Claude Code session with a first prompt of 40k+ / 60k+ tokens.
  build: (ctx) => ctx.fill(ctx.fixture('cc'), { extraOffset: extra }),
}));

const SWITCHED_MODELS = [
  'claude-sonnet-4-5',
  'claude-3-5-haiku-20241022',
  'claude-opus-4-1',
  'gpt-5',
  'claude-3-haiku-20240307',
  'claude-haiku-4-5',
  'claude-sonnet-4-5@20250929',
];

const modelSwitches: UnseenCase = {
  name: '13-model-switches-sonnet',
  build: (ctx) => {
    // Every 40 requests the next model: output limits differ; `gpt-5` is a stretch of null usage.
    const records = ctx.fixture('sonnet');
    let n = 0;
    for (const r of records) {
      if (r.kind !== 'usage') continue;
      const model = SWITCHED_MODELS[Math.floor(n++ / 40) % SWITCHED_MODELS.length] as string;
      r.model = model;
      if (model === 'gpt-5') {
        r.usage = null;
        r.plan = { keep: true };
      }
    }
    return ctx.fill(records);
  },
};

const PROVIDER_IDS = [
  ['bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'],
  ['openrouter', 'anthropic/claude-sonnet-4.5'],
  ['vertex', 'claude-sonnet-4-5@20250929'],
] as const;

const providerIds: UnseenCase[] = PROVIDER_IDS.map(([tag, model]) => ({
  name: `17-model-id-${tag}`,
  build: (ctx) => {
    const records = ctx.fixture('sonnet');
    for (const r of records) if (r.kind === 'usage') r.model = model;
    return ctx.fill(records);
  },
}));

/** Families 05, 10, 13 and 17: usage records missing, null or odd; heavier system prompts; model switches and ids. */
export const USAGE_CASES: readonly UnseenCase[] = [
  noUsageRecords,
  allUsageNull,
  noAt,
  noCacheFields,
  atBackwards,
  ...systemHeavy,
  modelSwitches,
  ...providerIds,
];
