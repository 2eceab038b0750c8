/**
 * Preserved thinking as the API enforces it (https://platform.claude.com/docs/en/build-with-claude/preserved-thinking
 * and its page "Prefix checks on thinking blocks"): for Claude Fable / Mythos 5.1 and later and
 * Opus / Sonnet / Haiku 5.5 and later, a thinking block sent back is valid only while the top-level
 * `system`, the `tools` and everything before it in `messages` are what they were when the model
 * produced it; "that block and every later thinking block are invalid" otherwise, and the request
 * is refused with a 400 (the default for accounts created from 2026-08-31, and on every account
 * for Fable 5.2). Leaving out a thinking block that lies between others fails the check too.
 *
 * The server binds each thinking block it mints for such a model to its prefix the way the API
 * binds it through the signature: the signature is the usual one (`thinkingSignature`) followed
 * by a digest of the prefix (canonical JSON: keys sorted, `cache_control` left out, since moving
 * breakpoints is not a change). The docs give no error text; the message below is this server's.
 * Written independently of the extension's own digest (src/core/pipeline/thinkingBinding.ts).
 */
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { createHash } from 'node:crypto';
import { thinkingSignature } from './ids';
import { invalid } from './reject';
import { blocksOf, type ApiRequest } from './request';

/** Whether the API checks the prefix of thinking blocks sent back to `model`. */
export function checksThinkingPrefix(model: string): boolean {
  const m = model.toLowerCase();
  return (
    /^claude-(fable|mythos)-5-[1-9]/.test(m) ||
    /^claude-(opus|sonnet|haiku)-5-[5-9]/.test(m) ||
    /^claude-(opus|sonnet|haiku|fable|mythos)-([6-9]|\d\d)/.test(m)
  );
}

const BOUND = /^([A-Za-z0-9+/]{43}=)([A-Za-z0-9+/]{43}=)$/;

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v as object)
      .filter((k) => k !== 'cache_control')
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

function step(prev: string, unit: string): string {
  return createHash('sha256').update(prev).update('\u0000').update(unit).digest('base64');
}

function head(req: ApiRequest): string {
  const system = typeof req.system === 'string' ? [{ type: 'text', text: req.system }] : (req.system ?? []);
  return step(step('', canonical(system)), canonical(req.tools ?? []));
}

/**
 * Calls `visit` with each block of the request's messages and the digest of everything before
 * it; returns the digest of the whole prefix.
 */
function walk(req: ApiRequest, visit?: (i: number, j: number, b: ContentBlockParam, before: string) => void): string {
  let d = head(req);
  req.messages.forEach((m, i) => {
    d = step(d, `role:${m.role}`);
    blocksOf(m).forEach((b, j) => {
      visit?.(i, j, b, d);
      d = step(d, canonical(b));
    });
  });
  return d;
}

/** The signature of a thinking block the answer to `req` starts with, bound to that request's prefix. */
export function boundThinkingSignature(req: ApiRequest, thinking: string): string {
  return `${thinkingSignature(thinking)}${step(walk(req), 'role:assistant')}`;
}

/** Throws the 400 for the first thinking block (of a model that checks it) whose prefix changed since it was produced. */
export function checkThinkingPrefix(req: ApiRequest): void {
  if (!checksThinkingPrefix(req.model)) return;
  walk(req, (i, j, b, before) => {
    if (b.type !== 'thinking') return;
    const bound = BOUND.exec(b.signature);
    if (bound && bound[2] !== before) {
      invalid(
        'thinking_prefix_mismatch',
        `messages.${i}.content.${j}: this thinking block no longer matches the conversation it was produced in: the system prompt, the tools or an earlier message changed, or an earlier thinking block was left out (prefix_binding_mismatch). Leave out this and every later thinking block, or send the history unchanged.`,
      );
    }
  });
}
