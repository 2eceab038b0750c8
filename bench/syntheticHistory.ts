/**
 * Deterministic synthetic conversations of a target size, shaped like a coding-agent
 * session: a user request, an assistant reply with a tool call, a tool result holding
 * code, and an assistant conclusion. Used by the pipeline-cost bench.
 */
import { appendAssistantMessage } from '../src/core/conversation/assistant';
import { applyUserMessage, assembleUserMessage } from '../src/core/conversation/assemble';
import type { ConversationState } from '../src/core/conversation/conversationModel';
import type { Clock, IdSource, Tokenizer } from '../src/core/platform/platformPorts';
import { messageRawTokens } from '../src/core/tokens/blockTokens';

const WORDS = [
  'const',
  'function',
  'return',
  'await',
  'import',
  'export',
  'interface',
  'string',
  'number',
  'session',
  'token',
  'budget',
  'compact',
  'summary',
  'message',
  'block',
  'cache',
  'anchor',
  'estimate',
  'window',
  'result',
  'error',
  'config',
  'path',
  'file',
  'line',
  'value',
  'index',
  'state',
  'event',
];

/** A tiny deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Code-like text of about `lines` lines. */
export function codeText(rand: () => number, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const n = 3 + Math.floor(rand() * 9);
    const words = Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]);
    out.push(`${'  '.repeat(Math.floor(rand() * 3))}${words.join(' ')}${rand() < 0.5 ? ';' : ' {'}`);
  }
  return out.join('\n');
}

/** Appends one synthetic turn (4 messages); returns the new state. Throws if the core refuses (a bug). */
export function addTurn(
  state: ConversationState,
  rand: () => number,
  deps: { clock: Clock; ids: IdSource },
  turnNo: number,
): ConversationState {
  const ask = assembleUserMessage(
    state,
    {
      userText: `Turn ${turnNo}: please look at src/module${turnNo}.ts and ${codeText(rand, 2)}`,
      pasteDirectory: '/bench',
    },
    deps,
  );
  if (!ask.ok) throw new Error(ask.error.message);
  let s = applyUserMessage(state, ask.value);
  const toolId = `toolu_bench_${turnNo}`;
  const call = appendAssistantMessage(
    s,
    [
      { type: 'text', text: `I'll read the file. ${codeText(rand, 2)}` },
      { type: 'tool_use', id: toolId, name: 'read_file', input: { path: `src/module${turnNo}.ts` } },
    ],
    deps,
  );
  if (!call.ok) throw new Error(call.error);
  s = call.state;
  const result = assembleUserMessage(
    s,
    {
      toolResults: [{ toolUseId: toolId, content: codeText(rand, 120 + Math.floor(rand() * 120)) }],
      pasteDirectory: '/bench',
    },
    deps,
  );
  if (!result.ok) throw new Error(result.error.message);
  s = applyUserMessage(s, result.value);
  const done = appendAssistantMessage(s, [{ type: 'text', text: `Done. ${codeText(rand, 8)}` }], deps);
  if (!done.ok) throw new Error(done.error);
  return done.state;
}

/** Grows `state` by whole turns until its raw message tokens reach `targetTokens`. */
export function growTo(
  state: ConversationState,
  targetTokens: number,
  tokenizer: Tokenizer,
  rand: () => number,
  deps: { clock: Clock; ids: IdSource },
): ConversationState {
  let s = state;
  let total = s.messages.reduce((n, m) => n + messageRawTokens(m, tokenizer).text, 0);
  let turn = (s.messages.at(-1)?.turn ?? 0) + 1;
  while (total < targetTokens) {
    const before = s.messages.length;
    s = addTurn(s, rand, deps, turn++);
    for (const m of s.messages.slice(before)) total += messageRawTokens(m, tokenizer).text;
  }
  return s;
}
