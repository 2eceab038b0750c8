/**
 * The main-model route of a summary (see summariserRoute.ts): the request is the main
 * conversation's own request — the same system, tools, messages, thinking and cache
 * breakpoints, byte for byte, as prepareRequest built it (normalized, so a tool_use at the
 * end already has its result) — with one text block appended to its last user message: the
 * summarise instruction naming the stretch to summarise. Everything before that block is
 * the prefix the last request cached, so a warm cache serves it as cache reads.
 */
import type { MessageCreateParamsNonStreaming, TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { LlmClient } from '../llm/llmClient';
import { requestCostUsd } from '../llm/cost';
import { CutAttempts } from '../llm/cutRequest';
import type { CacheTtl, ConversationState, Plan } from '../conversation/conversationModel';
import { summaryTextOf, unknownCost, type GuardedCall, type ChunkRunResult } from './summariseChunks';
import { planSection, SUMMARY_SYSTEM_PROMPT, summaryTargetTokens } from './summaryPrompt';
import { toWellFormed } from '../platform/text';
import type { CompactionRegion } from './types';

/** The main conversation's request for the current state, and the normalized state it was built from. */
export interface MainPrefix {
  readonly params: MessageCreateParamsNonStreaming;
  /** The conversation as sent (its message indices are those of `params.messages`). */
  readonly sent: ConversationState;
}

/** Where a region lies in the sent messages (0-based, inclusive), or undefined when normalize merged it away. */
export function stretchIn(prefix: MainPrefix, region: CompactionRegion): { from: number; to: number } | undefined {
  const firstId = region.messageIds[0];
  const lastId = region.messageIds.at(-1);
  const from = prefix.sent.messages.findIndex((m) => m.id === firstId);
  const to = prefix.sent.messages.findIndex((m) => m.id === lastId);
  if (from < 0 || to < from || to >= prefix.params.messages.length - 1) return undefined;
  return { from, to };
}

/** The sentence of the instruction that names the stretch; `stretchOfRequest` reads it back. */
const STRETCH = /Summarise messages (\d+) to (\d+) of this conversation/;

/** What the instruction says. */
export interface MainInstructionInput {
  /** 0-based indices of the stretch in the request's messages. */
  readonly from: number;
  readonly to: number;
  readonly regionTurns: readonly [number, number];
  readonly targetTokens: number;
  readonly maxTokens: number;
  readonly instructions?: string;
  /** The assistant's plan, which the summary refers to (summaryPrompt.ts `planSection`). */
  readonly plan?: Plan;
}

/** The summarise instruction appended to the main request. */
export function mainSummaryInstruction(input: MainInstructionInput): string {
  const parts = [
    '[Context compaction: this request comes from the app, not from the user. Pause the task; do not call tools.]',
    `Summarise messages ${input.from + 1} to ${input.to + 1} of this conversation (counting every user and assistant message from the first, starting at 1; they are turns ${input.regionTurns[0]}–${input.regionTurns[1]}). Your summary will replace exactly those messages; every message after them stays as it is, so summarise nothing after message ${input.to + 1}.`,
    SUMMARY_SYSTEM_PROMPT,
    ...(input.plan ? [planSection(input.plan)] : []),
    `Aim for about ${input.targetTokens.toLocaleString('en-US')} tokens; never more than ${input.maxTokens.toLocaleString('en-US')}.`,
  ];
  if (input.instructions?.trim())
    parts.push(
      `The user asked for this compaction with these instructions; follow them:\n${toWellFormed(input.instructions.trim())}`,
    );
  return parts.join('\n\n');
}

/**
 * The main request with the instruction appended as the last block of its last user message
 * (normalize makes the last message the user's). Nothing before it changes: system, tools,
 * earlier messages and their cache breakpoints are the very objects of `params`.
 */
export function buildMainSummaryRequest(
  params: MessageCreateParamsNonStreaming,
  instruction: string,
): MessageCreateParamsNonStreaming {
  const last = params.messages.at(-1);
  const block: TextBlockParam = { type: 'text', text: instruction };
  if (!last || last.role !== 'user')
    return { ...params, messages: [...params.messages, { role: 'user', content: [block] }] };
  const content = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : last.content;
  return { ...params, messages: [...params.messages.slice(0, -1), { ...last, content: [...content, block] }] };
}

/** The stretch a main-route summary request asks for (1-based, inclusive), read from its instruction. */
export function stretchOfRequest(params: MessageCreateParamsNonStreaming): { from: number; to: number } | undefined {
  const last = params.messages.at(-1);
  if (!last || typeof last.content === 'string') return undefined;
  const block = last.content.at(-1);
  const m = block?.type === 'text' ? STRETCH.exec(block.text) : null;
  return m ? { from: Number(m[1]), to: Number(m[2]) } : undefined;
}

/** What one main-route summary needs. */
export interface MainRunOptions {
  readonly summariser: LlmClient;
  readonly prefix: MainPrefix;
  readonly ttl: CacheTtl;
  /** Upper bound on one summary in tokens. */
  readonly maxSummaryTokens: number;
  readonly regionTokens: number;
  readonly instructions?: string;
  readonly plan?: Plan;
}

/**
 * Summarises one region with the main model from its cached prefix; `undefined` when the
 * region is not a stretch of the prefix (the caller takes the small route then).
 */
export async function runMain(
  region: CompactionRegion,
  opts: MainRunOptions,
  guard: GuardedCall,
): Promise<ChunkRunResult | undefined> {
  const at = stretchIn(opts.prefix, region);
  if (!at) return undefined;
  const limit = Math.max(1, Math.min(opts.maxSummaryTokens, opts.prefix.params.max_tokens));
  const target = summaryTargetTokens(opts.regionTokens, limit);
  const params = buildMainSummaryRequest(
    opts.prefix.params,
    mainSummaryInstruction({
      ...at,
      regionTurns: [region.firstTurn, region.lastTurn],
      targetTokens: target,
      maxTokens: limit,
      ...(opts.instructions?.trim() ? { instructions: opts.instructions } : {}),
      ...(opts.plan ? { plan: opts.plan } : {}),
    }),
  );
  // Attempts cut mid-answer (retried, or the one that failed) are billed: the record counts them.
  const cuts = new CutAttempts();
  const model = params.model;
  const res = await guard.race(() => opts.summariser.stream(params, { signal: guard.signal, onEvent: cuts.onEvent }), {
    model,
    ttl: opts.ttl,
  });
  if (!res.ok) {
    cuts.failed(res.error);
    const failed = cuts.cost(model, opts.ttl);
    return { ok: false, error: res.error, costUsd: failed.usd, ...unknownCost(failed.unknown) };
  }
  const cut = cuts.cost(model, opts.ttl);
  const cost = requestCostUsd(model, res.result.usage, opts.ttl);
  const notes = [`summarised by the main model ${model} from its prompt cache`];
  if (cost === undefined) notes.push(`price of model ${model} unknown: its cost is not counted`);
  const costUsd = (cost ?? 0) + cut.usd;
  const unknown = unknownCost(cost === undefined || cut.unknown);
  const answer = summaryTextOf(res.result, 'main model');
  if (!answer.ok) return { ok: false, error: answer.error, costUsd, ...unknown };
  const text = answer.text;
  if (res.result.stopReason === 'max_tokens') notes.push('the summary was cut at max_tokens');
  return { ok: true, body: text, leftOut: [], costUsd, ...unknown, notes };
}
