/**
 * The server route of a summary (see serverRoute.ts): compaction on demand. The request is the
 * main conversation's own request (mainSummary.ts `MainPrefix`: the same system, tools and
 * thinking, so its prefix is the one earlier requests cached) cut after the region's last
 * message, with `compaction: {type: 'summarize'}` and the `compact-2026-09-04` beta; the API
 * summarises every message sent and answers with one signed `compaction` block, stop reason
 * `compaction` (https://platform.claude.com/docs/en/build-with-claude/compaction-on-demand;
 * SDK `BetaCompactionConfig`, `BetaCompactionBlock`). Its only message breakpoint sits where an
 * earlier request's prompt ended (the anchor), so the cache serves the prefix up to there.
 *
 * The block goes first in the history, in an assistant message of its own (the response's
 * message, https://platform.claude.com/docs/en/build-with-claude/compaction-background: "put the
 * returned message in their place"); after it, as after our own summaries, a user message with
 * the user's words of the region verbatim and a note naming the turns and the compaction's
 * recall id, and — when the region ended a turn — the acknowledgement, so roles keep
 * alternating. The record keeps the originals (Restore puts them back) and the summary text.
 */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { LlmClient, LlmError } from '../llm/llmClient';
import { requestCostUsd } from '../llm/cost';
import { CutAttempts } from '../llm/cutRequest';
import type { AssistantContent } from '../conversation/assistant';
import { serverFieldsOf } from '../conversation/assistant';
import type { Block, CacheTtl, Message, TextBlock, Plan } from '../conversation/conversationModel';
import type { Clock, IdSource } from '../platform/platformPorts';
import { toWellFormed } from '../platform/text';
import { cacheControl, type ChatMessageParam } from '../pipeline/serialize';
import { ON_DEMAND_COMPACTION_BETA, type ServerRequestParts } from '../server/serverContext';
import type { MainPrefix } from './mainSummary';
import { isUserWords } from './regions';
import { checkRetention, messagesText } from './retention';
import { MAX_SERVER_SUMMARY_CHARS } from './serverCompaction';
import { unknownCost, type GuardedCall } from './summariseChunks';
import { planSection, SUMMARY_SYSTEM_PROMPT } from './summaryPrompt';
import {
  compactorMeta,
  IN_TURN_NOTE,
  recallFooter,
  SUMMARY_ACK,
  USER_WORDS_BEFORE_NOTE,
  USER_WORDS_NOTE,
} from './summaryReplacement';
import type { CompactionRecord, CompactionRegion, CompactionTrigger } from './types';

/** The first line of the note after a server summary. */
export function serverSummaryNote(firstTurn: number, lastTurn: number): string {
  return `(The compaction block above is the API's summary of turns ${firstTurn}–${lastTurn}.)`;
}

/**
 * The compaction request: `params` cut after message `to`, every message breakpoint taken out
 * and one put on the last block of message `anchor` (when given: where an earlier request's
 * prompt ended, so the cache holds that prefix); tools and system keep theirs. Nothing is
 * mutated: the serializer memoises message params.
 */
export function buildCompactionRequest(
  params: MessageCreateParamsNonStreaming,
  to: number,
  anchor: { readonly index: number; readonly ttl: CacheTtl } | undefined,
): MessageCreateParamsNonStreaming {
  const messages = params.messages.slice(0, to + 1).map((m, i) => {
    const content = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
    const stripped = content.map((b) => {
      if (!('cache_control' in b) || b.cache_control === undefined) return b;
      const { cache_control: _bp, ...rest } = b;
      return rest as typeof b;
    });
    if (anchor?.index === i)
      for (let k = stripped.length - 1; k >= 0; k--) {
        const b = stripped[k];
        if (b && b.type !== 'thinking' && b.type !== 'redacted_thinking') {
          stripped[k] = { ...b, cache_control: cacheControl(anchor.ttl) } as typeof b;
          break;
        }
      }
    return { ...m, content: stripped } as ChatMessageParam;
  });
  return { ...params, messages };
}

/**
 * The request's `compaction` and beta: the server's own summary prompt, unless the user gave
 * instructions — `instructions` replace that prompt (SDK `BetaCompactionConfig`), so they are
 * ours (the rules our summaries follow, the plan) with the user's appended.
 */
export function compactionParts(instructions?: string, plan?: Plan): ServerRequestParts {
  const asked = instructions?.trim();
  const text = asked
    ? [
        SUMMARY_SYSTEM_PROMPT,
        ...(plan ? [planSection(plan)] : []),
        `The user asked for this compaction with these instructions; follow them:\n${toWellFormed(asked)}`,
      ].join('\n\n')
    : undefined;
  return {
    betas: [ON_DEMAND_COMPACTION_BETA],
    compaction: { type: 'summarize', ...(text ? { instructions: text } : {}) },
  };
}

/** The compaction block of an answer, when it is one the API made for a compaction request. */
export function compactionBlockOf(
  content: readonly AssistantContent[],
  stopReason: string | null,
): Extract<AssistantContent, { type: 'compaction' }> | undefined {
  const block = content.find((c) => c.type === 'compaction');
  if (stopReason !== 'compaction' || block?.type !== 'compaction') return undefined;
  if (!block.content.trim() || block.content.length > MAX_SERVER_SUMMARY_CHARS) return undefined;
  return block;
}

/** What one server summary needs. */
export interface ServerRunOptions {
  readonly summariser: LlmClient;
  readonly prefix: MainPrefix;
  /** The lifetime of the request's breakpoints (for its cost). */
  readonly ttl: CacheTtl;
  /** The id of the message whose entry the request reads (serverRoute.ts `serverAnchor`), when it is expected alive. */
  readonly anchorId?: string;
  readonly instructions?: string;
  readonly plan?: Plan;
}

/** What the record of a server summary needs. */
export interface ServerRecordDeps {
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly tokensOf: (m: Message) => number;
  readonly trigger: CompactionTrigger;
  readonly strategy: string;
  readonly instructions?: string;
}

/** A server summary's outcome: its record (not yet applied), or the error and what the attempt cost. */
export type ServerRunResult =
  | { readonly ok: true; readonly record: CompactionRecord }
  | { readonly ok: false; readonly error: LlmError; readonly costUsd: number; readonly costUnknown?: true };

/**
 * Summarises `originals` (region `region`, which starts the history) by compaction on demand;
 * undefined when the region is not the start of the sent messages (the caller takes the other
 * routes then). Never throws.
 */
export async function runServer(
  originals: readonly Message[],
  region: CompactionRegion,
  opts: ServerRunOptions,
  deps: ServerRecordDeps,
  guard: GuardedCall,
): Promise<ServerRunResult | undefined> {
  const sent = opts.prefix.sent.messages;
  const to = sent.findIndex((m) => m.id === region.messageIds.at(-1));
  if (sent[0]?.id !== region.messageIds[0] || to < 0 || to >= opts.prefix.params.messages.length - 1) return undefined;
  const anchorAt = opts.anchorId === undefined ? -1 : sent.findIndex((m) => m.id === opts.anchorId);
  const params = buildCompactionRequest(
    opts.prefix.params,
    to,
    anchorAt >= 0 && anchorAt <= to ? { index: anchorAt, ttl: opts.ttl } : undefined,
  );
  const started = deps.clock.now();
  const server = compactionParts(opts.instructions, opts.plan);
  // Attempts cut mid-answer (retried, or the one that failed) are billed: the record counts them.
  const cuts = new CutAttempts();
  const res = await guard.race(
    () => opts.summariser.stream(params, { signal: guard.signal, onEvent: cuts.onEvent, server }),
    { model: params.model, ttl: opts.ttl },
  );
  if (!res.ok) {
    cuts.failed(res.error);
    const failed = cuts.cost(params.model, opts.ttl);
    return { ok: false, error: res.error, costUsd: failed.usd, ...unknownCost(failed.unknown) };
  }
  const cut = cuts.cost(params.model, opts.ttl);
  const reported = requestCostUsd(params.model, res.result.usage, opts.ttl);
  const cost = reported === undefined || cut.unknown ? undefined : reported + cut.usd;
  const costUsd = (reported ?? 0) + cut.usd;
  const block = compactionBlockOf(res.result.content, res.result.stopReason);
  if (!block)
    return {
      ok: false,
      error: {
        kind: 'protocol',
        message: `The API answered the compaction request without a usable compaction block (stop reason ${res.result.stopReason ?? 'none'}).`,
        retryable: true,
      },
      costUsd,
      ...unknownCost(cost === undefined),
    };
  const record = serverRecord(originals, region, block, {
    ...deps,
    model: res.result.model || params.model,
    costUsd,
    ...unknownCost(cost === undefined),
    started,
  });
  return { ok: true, record };
}

/**
 * The record of a server summary: the block first (an assistant message), then the user's
 * words and the note (a user message), then — for a region that ended a turn — the
 * acknowledgement. The retention check runs on that replacement before the recall footer is
 * added, as for our own summaries.
 */
export function serverRecord(
  originals: readonly Message[],
  region: CompactionRegion,
  block: Extract<AssistantContent, { type: 'compaction' }>,
  deps: ServerRecordDeps & {
    readonly model: string;
    readonly costUsd: number;
    readonly costUnknown?: true;
    readonly started: number;
  },
): CompactionRecord {
  const id = deps.ids.next('cmp');
  const first = originals[0] as Message;
  const last = originals.at(-1) as Message;
  const now = deps.clock.now();
  const meta = compactorMeta(deps);
  const summary: Block = {
    type: 'summary',
    text: block.content,
    compactionId: id,
    turnRange: [first.turn, last.turn],
    server: { ...serverFieldsOf(block), onDemand: true },
    meta: meta(),
  };
  const words = originals.flatMap((m) => m.blocks.filter((b): b is TextBlock => isUserWords(b)));
  const inTurn = last.role === 'user';
  const head = serverSummaryNote(region.firstTurn, region.lastTurn);
  const notes = [
    head,
    ...(words.length > 0 ? [inTurn ? USER_WORDS_BEFORE_NOTE : USER_WORDS_NOTE] : []),
    ...(inTurn ? [IN_TURN_NOTE] : []),
  ];
  const note: TextBlock = { type: 'text', text: notes.join('\n\n'), meta: meta() };
  const blockMessage: Message = { id: deps.ids.next('msg'), role: 'assistant', blocks: [summary], turn: first.turn };
  const leadId = deps.ids.next('msg');
  const lead = (n: TextBlock): Message => ({
    id: leadId,
    role: 'user',
    blocks: inTurn ? [...words, n] : [n, ...words],
    turn: inTurn ? last.turn : first.turn,
  });
  const ack: Message[] = inTurn
    ? []
    : [
        {
          id: deps.ids.next('msg'),
          role: 'assistant',
          blocks: [{ type: 'text', text: SUMMARY_ACK, meta: meta() }],
          turn: last.turn,
        },
      ];
  const retention = checkRetention(originals, messagesText([blockMessage, lead(note), ...ack]));
  const footer = recallFooter(id, region.firstTurn, region.lastTurn, retention.lost);
  const replacement = [blockMessage, lead({ ...note, text: `${note.text}\n\n${footer}` }), ...ack];
  const tokensBefore = originals.reduce((n, m) => n + deps.tokensOf(m), 0);
  return {
    id,
    at: deps.started,
    trigger: deps.trigger,
    layer: 'summarise',
    strategy: deps.strategy,
    regions: [
      {
        firstTurn: region.firstTurn,
        lastTurn: region.lastTurn,
        messageIds: originals.map((m) => m.id),
        tokens: tokensBefore,
      },
    ],
    originals,
    replacement,
    summary: `${block.content}\n\n${footer}`,
    ...(deps.instructions?.trim() ? { instructions: deps.instructions.trim() } : {}),
    tokensBefore,
    tokensAfter: replacement.reduce((n, m) => n + deps.tokensOf(m), 0),
    model: deps.model,
    costUsd: deps.costUsd,
    ...unknownCost(deps.costUnknown),
    durationMs: Math.max(0, now - deps.started),
    fallbacks: [`summarised by the API (compaction on demand, ${ON_DEMAND_COMPACTION_BETA}) with ${deps.model}`],
    retention,
  };
}
