/**
 * Helpers for tests that drive the fake server with the real SDK: a client for a server,
 * filler text of an exact token count, a minimal valid request, and a raw `fetch` with the
 * headers the SDK sends (for what the SDK cannot send, such as a missing version header).
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { FakeAnthropic } from './server';

/** An SDK client pointed at the fake server (never a real key, never a real host). */
export function clientFor(
  server: Pick<FakeAnthropic, 'url'>,
  opts: { maxRetries?: number; apiKey?: string } = {},
): Anthropic {
  return new Anthropic({
    apiKey: opts.apiKey ?? 'test',
    baseURL: server.url,
    maxRetries: opts.maxRetries ?? 0,
    timeout: 10_000,
  });
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'sigma', 'kappa', 'lambda', 'theta', 'zeta', 'iota', 'rho'];

/** Text of exactly `tokens` tokens under the fake tokenizer (short lowercase words, one space apart). */
export function filler(tokens: number, seed = 0): string {
  return Array.from({ length: tokens }, (_, i) => WORDS[(i + seed) % WORDS.length]).join(' ');
}

/** The smallest valid request, with overrides. */
export function minimalRequest(over: Partial<MessageCreateParamsNonStreaming> = {}): MessageCreateParamsNonStreaming {
  return { model: 'claude-sonnet-4-6', max_tokens: 256, messages: [{ role: 'user', content: 'Hello' }], ...over };
}

/** POSTs JSON to the server with the SDK's usual headers (overridable; `null` removes one). */
export async function rawPost(
  server: Pick<FakeAnthropic, 'url'>,
  path: string,
  body: unknown,
  headers: Record<string, string | null> = {},
): Promise<{ status: number; headers: Headers; json: unknown }> {
  const base: Record<string, string | null> = {
    'content-type': 'application/json',
    'x-api-key': 'test',
    'anthropic-version': '2023-06-01',
    ...headers,
  };
  const sent = Object.fromEntries(Object.entries(base).filter((e): e is [string, string] => e[1] !== null));
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: sent,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, json };
}
