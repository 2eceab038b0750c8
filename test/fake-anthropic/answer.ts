/**
 * Turns a scripted step (or the default echo) into the assistant message the server returns:
 * thinking (also redacted), text and tool_use blocks, the stop reason, output tokens, and — when the answer
 * is longer than `max_tokens` and no stop reason was scripted — the cut the API would make.
 */
import { thinkingSignature, type IdSource } from './ids';
import { PER_TOOL_BLOCK } from './promptLayout';
import { defaultAnswerText } from './script';
import { boundThinkingSignature, checksThinkingPrefix } from './thinkingPrefix';
import { countTokens } from './tokenizer';
import { searchToolOf, searchTools } from './toolSearch';
import type { ApiRequest } from './request';
import type { AnswerStep, FakeUsage, StopReason } from './types';

/** A content block of an answer, as the API returns it. */
export type OutBlock =
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature: string }
  /** Encrypted reasoning (SDK `RedactedThinkingBlock`): opaque `data`, streamed whole in content_block_start. */
  | { readonly type: 'redacted_thinking'; readonly data: string }
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: unknown }
  /**
   * A server compaction's summary (first in the content; under `compact_20260112` its tokens are
   * the compaction iteration's), signed when it answers a compaction request (compactionRequest.ts).
   */
  | {
      readonly type: 'compaction';
      readonly content: string;
      readonly encrypted_content: string | null;
      readonly signature?: string;
    }
  /** A call of the API's tool search (SDK `ServerToolUseBlock`), streamed like a tool_use. */
  | { readonly type: 'server_tool_use'; readonly id: string; readonly name: string; readonly input: unknown }
  /** Its result (SDK `ToolSearchToolResultBlock`), whole in content_block_start. */
  | {
      readonly type: 'tool_search_tool_result';
      readonly tool_use_id: string;
      readonly content: {
        readonly type: 'tool_search_tool_search_result';
        readonly tool_references: readonly { readonly type: 'tool_reference'; readonly tool_name: string }[];
      };
    };

/** What the scripted model answers. */
export interface Answer {
  readonly content: readonly OutBlock[];
  readonly stopReason: StopReason;
  readonly outputTokens: number;
}

/** The answer to `req` for `step` (undefined: the default echo). */
export function buildAnswer(step: AnswerStep | undefined, req: ApiRequest, ids: IdSource): Answer {
  const content: OutBlock[] = [];
  if (step?.thinking) {
    const signature = checksThinkingPrefix(req.model)
      ? boundThinkingSignature(req, step.thinking)
      : thinkingSignature(step.thinking);
    content.push({ type: 'thinking', thinking: step.thinking, signature });
  }
  if (step?.redactedThinking) content.push({ type: 'redacted_thinking', data: step.redactedThinking });
  if (step?.toolSearch) content.push(...toolSearchBlocks(req, step.toolSearch.pattern, ids));
  const uses = step?.toolUses ?? [];
  const text = step?.text ?? (uses.length === 0 ? defaultAnswerText(req) : undefined);
  if (text) content.push({ type: 'text', text });
  for (const u of uses)
    content.push({ type: 'tool_use', id: u.id ?? ids.next('toolu_01'), name: u.name, input: u.input });
  const natural: StopReason = uses.length > 0 ? 'tool_use' : 'end_turn';
  const cost = content.reduce((n, b) => n + outputTokens(b), 0);
  const maxTokens = req.max_tokens ?? Number.POSITIVE_INFINITY;
  if (step?.stopReason === undefined && cost > maxTokens) {
    return {
      content: truncate(content, maxTokens),
      stopReason: 'max_tokens',
      outputTokens: step?.outputTokens ?? maxTokens,
    };
  }
  return { content, stopReason: step?.stopReason ?? natural, outputTokens: step?.outputTokens ?? Math.max(1, cost) };
}

/** A tool search of the request's search tool for `pattern`: the call, and its result naming the tools found. */
function toolSearchBlocks(req: ApiRequest, pattern: string, ids: IdSource): OutBlock[] {
  const tool = searchToolOf(req);
  if (!tool) throw new Error('The scripted step has toolSearch, but the request has no tool search tool.');
  const id = ids.next('srvtoolu_01');
  const bm25 = tool.name === 'tool_search_tool_bm25';
  return [
    { type: 'server_tool_use', id, name: String(tool.name), input: bm25 ? { query: pattern } : { pattern } },
    {
      type: 'tool_search_tool_result',
      tool_use_id: id,
      content: {
        type: 'tool_search_tool_search_result',
        tool_references: searchTools(req, pattern).map((tool_name) => ({ type: 'tool_reference' as const, tool_name })),
      },
    },
  ];
}

/** Output tokens of one block. */
export function outputTokens(b: OutBlock): number {
  if (b.type === 'compaction' || b.type === 'tool_search_tool_result') return 0;
  if (b.type === 'thinking') return countTokens(b.thinking);
  if (b.type === 'redacted_thinking') return Math.ceil(b.data.length / 4);
  if (b.type === 'text') return countTokens(b.text);
  return PER_TOOL_BLOCK + countTokens(b.name) + countTokens(JSON.stringify(b.input));
}

/** The blocks that fit in `budget` tokens: whole blocks, then the longest prefix of a text or thinking block. */
function truncate(content: readonly OutBlock[], budget: number): OutBlock[] {
  const out: OutBlock[] = [];
  let left = budget;
  for (const b of content) {
    const cost = outputTokens(b);
    if (cost <= left) {
      out.push(b);
      left -= cost;
      continue;
    }
    if (b.type === 'text' && left > 0) {
      const text = longestPrefix(b.text, left);
      if (text) out.push({ type: 'text', text });
    } else if (b.type === 'thinking' && left > 0) {
      out.push({ ...b, thinking: longestPrefix(b.thinking, left) });
    }
    break;
  }
  return out;
}

function longestPrefix(text: string, budget: number): string {
  const chars = [...text];
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(chars.slice(0, mid).join('')) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return chars.slice(0, lo).join('').trimEnd();
}

/** What a response under `context_management` adds: the applied edits and the per-iteration usage. */
export interface ServerExtras {
  readonly contextManagement: { readonly applied_edits: readonly unknown[] };
  readonly iterations?: readonly Record<string, unknown>[];
}

/** The full `Message` object of a non-streaming response. */
export function messageBody(
  id: string,
  model: string,
  answer: Answer,
  usage: FakeUsage,
  diagnostics?: unknown,
  server?: ServerExtras,
): Record<string, unknown> {
  return {
    ...(diagnostics !== undefined ? { diagnostics } : {}),
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: answer.content,
    stop_reason: answer.stopReason,
    stop_sequence: null,
    stop_details: answer.stopReason === 'refusal' ? { type: 'refusal', category: null, explanation: null } : null,
    container: null,
    usage: server?.iterations ? { ...usage, iterations: server.iterations } : usage,
    ...(server ? { context_management: server.contextManagement } : {}),
  };
}
