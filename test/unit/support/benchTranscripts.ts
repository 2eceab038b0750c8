/** Builders of tiny transcripts (JSONL) for the replay bench's tests, and the real ones' paths. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { prepareTranscript, type PreparedTranscript } from '../../../bench/replayCore';
import { parseTranscript } from '../../../bench/transcript';
import { countingTokenizer } from './tokenFakes';

/** One JSONL line. */
export const line = (o: unknown): string => JSON.stringify(o);

/** `n` distinct words (one token each for the word-counting tokenizer). */
export function words(n: number, prefix = 'w'): string {
  return Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
}

/** A user message line. */
export const user = (content: unknown): string => line({ kind: 'message', message: { role: 'user', content } });

/** An assistant message line. */
export const assistant = (content: unknown): string =>
  line({ kind: 'message', message: { role: 'assistant', content } });

/** A usage line: `read` cache-read tokens of a `prompt`-token request, at `at` (ISO) when given. */
export function usage(opts: {
  prompt: number;
  read: number;
  /** Tokens the request wrote to the cache (0 when not given). */
  write?: number;
  at?: string;
  model?: string;
  output?: number;
}): string {
  return line({
    kind: 'usage',
    model: opts.model ?? 'claude-sonnet-4-5',
    ...(opts.at ? { at: opts.at } : {}),
    usage: {
      input_tokens: opts.prompt - opts.read - (opts.write ?? 0),
      cache_read_input_tokens: opts.read,
      cache_creation_input_tokens: opts.write ?? 0,
      output_tokens: opts.output ?? 10,
    },
  });
}

/** The time `minutes` after 09:00 on a fixed day (before the replay's own start time, as real sessions are), ISO. */
export function at(minutes: number): string {
  return new Date(Date.parse('2025-03-02T09:00:00Z') + minutes * 60_000).toISOString();
}

/** Parses and prepares lines with the word-counting tokenizer (fast and exact). */
export function prepare(lines: readonly string[]): PreparedTranscript {
  return prepareTranscript('tiny.jsonl', parseTranscript(lines.join('\n'), 'tiny.jsonl'), countingTokenizer());
}

/** Words of each tool result of toolSession. */
export const RESULT_WORDS = 2_500;

/**
 * A task, then `n` tool calls whose results are `RESULT_WORDS` words each, one request per
 * result, a minute apart; every reported prompt also holds `overhead` tokens the file does not
 * (the agent's system prompt and tools).
 */
export function toolSession(n: number, overhead = 0): string[] {
  const lines = [
    user(`fix the bug ${words(200, 'task')}`),
    usage({ prompt: 260 + overhead, read: 0, at: at(0) }),
    assistant([{ type: 'tool_use', id: 'tu0', name: 'read_file', input: { path: 'a0.ts' } }]),
  ];
  let prompt = 280 + overhead;
  for (let i = 0; i < n; i++) {
    lines.push(user([{ type: 'tool_result', tool_use_id: `tu${i}`, content: words(RESULT_WORDS, `r${i}x`) }]));
    prompt += RESULT_WORDS + 30;
    lines.push(usage({ prompt, read: prompt - RESULT_WORDS - 30, at: at(i + 1) }));
    lines.push(assistant([{ type: 'tool_use', id: `tu${i + 1}`, name: 'read_file', input: { path: `a${i + 1}.ts` } }]));
  }
  return lines;
}

/** The folder of real sessions the benches replay. */
export const FIXTURE_DIR = 'test/fixtures';

/** Paths of every real session transcript in {@link FIXTURE_DIR}, sorted. */
export function fixtureTranscripts(): string[] {
  return readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.transcript.jsonl'))
    .sort()
    .map((f) => join(FIXTURE_DIR, f));
}
