/**
 * A session built from scratch, request by request, as an agent would log it: user messages,
 * tool rounds and answers, a usage record before each assistant message (12 s apart), and a
 * compaction record of its own whenever the real prompt would pass `compactAt`. `done()`
 * fills the usage (usage.ts).
 */
import { CLAUDE_PER_CL100K, type MessageEstimate } from './estimate';
import type { Rng } from './random';
import { messageRecord, type Block, type Role, type TranscriptRecord, type UsagePlan } from './records';
import { fillUsage } from './usage';

/** One call of a tool round and what it returned (default `ok`). */
export interface ToolCall {
  readonly name: string;
  readonly input: unknown;
  readonly result?: string | readonly Block[];
}

/** What a session is made of and how big its unseen part is. */
export interface SessionOptions {
  readonly model: string;
  /** The first request's time (default 2026-01-15T10:00:00Z). */
  readonly start?: string;
  /** The original agent compacts when the real prompt would pass this (default 160k). */
  readonly compactAt?: number;
  /** Tokens of the unseen system prompt and tools (default 15k). */
  readonly sys?: number;
}

/** A session under construction. */
export class Session {
  private readonly records: TranscriptRecord[] = [];
  private readonly model: string;
  private readonly compactAt: number;
  private readonly sys: number;
  private t: number;
  private est = 0;

  constructor(
    private readonly estimate: MessageEstimate,
    private readonly rng: Rng,
    opts: SessionOptions,
  ) {
    this.model = opts.model;
    this.compactAt = opts.compactAt ?? 160_000;
    this.sys = opts.sys ?? 15_000;
    this.t = Date.parse(opts.start ?? '2026-01-15T10:00:00.000Z');
  }

  /** Appends a message. */
  msg(role: Role, content: string | readonly Block[]): void {
    const r = messageRecord(role, content);
    this.records.push(r);
    this.est += this.estimate.message(r.message);
  }

  /** Appends a request `gapS` seconds after the previous (after a compaction when the prompt would pass `compactAt`); returns its plan. */
  usage(gapS = 12): UsagePlan {
    if (this.est + this.sys > this.compactAt) this.compaction();
    this.t += gapS * 1000;
    const plan: UsagePlan = { fresh: true };
    this.records.push({ kind: 'usage', model: this.model, at: new Date(this.t).toISOString(), usage: {}, plan });
    return plan;
  }

  /** A user message: a string becomes one text block. */
  user(content: string | readonly Block[]): void {
    this.msg('user', typeof content === 'string' ? [{ type: 'text', text: content }] : content);
  }

  /** A request and its final answer: `text`, after signed `thinking` when given. */
  answer(text: string, thinking?: string): void {
    const blocks: Block[] = [];
    if (thinking) blocks.push({ type: 'thinking', thinking, signature: this.rng.signature() });
    blocks.push({ type: 'text', text });
    this.request(blocks);
  }

  /** One tool round: a request, its calls (after signed thinking and text when given), then their results. */
  round(calls: readonly ToolCall[], opts: { readonly thinking?: string; readonly text?: string } = {}): void {
    const blocks: Block[] = [];
    if (opts.thinking) blocks.push({ type: 'thinking', thinking: opts.thinking, signature: this.rng.signature() });
    if (opts.text) blocks.push({ type: 'text', text: opts.text });
    const ids = calls.map(() => this.rng.toolId());
    calls.forEach((c, i) => blocks.push({ type: 'tool_use', id: ids[i], name: c.name, input: c.input }));
    this.request(blocks);
    const results = calls.map((c, i): Block => ({
      type: 'tool_result',
      tool_use_id: ids[i],
      content: c.result ?? 'ok',
    }));
    if (results.length > 0) this.msg('user', results);
  }

  /** The records, their usage filled. */
  done(): TranscriptRecord[] {
    return fillUsage(this.records, this.estimate, { sys: this.sys });
  }

  private request(blocks: readonly Block[]): void {
    const plan = this.usage();
    plan.output = Math.round(blocks.reduce((n, b) => n + this.estimate.block(b), 0));
    this.msg('assistant', blocks);
  }

  private compaction(): void {
    const summary = `## Summary\n${this.rng.text(6000, 'prose')}`;
    this.records.push({ kind: 'compaction', summary, tokensBefore: Math.round(this.est + this.sys) });
    this.est = (1 + this.estimate.count(summary)) * CLAUDE_PER_CL100K;
  }
}

/** A typical small coding round: one Read, Bash or Grep whose result is about `chars` characters of code or log. */
export function smallRound(s: Session, rng: Rng, chars = 3000): void {
  const kind = rng.pick(['Read', 'Bash', 'Grep']);
  const input =
    kind === 'Read'
      ? { file_path: `/repo/src/${rng.ident()}.ts` }
      : kind === 'Bash'
        ? { command: `npm test -- ${rng.ident()}`, description: 'run tests' }
        : { pattern: rng.ident(), path: '/repo/src' };
  const result = rng.text(chars, kind === 'Bash' ? 'log' : 'code');
  const text = rng.next() < 0.5 ? `Let me look at ${rng.ident()}.` : undefined;
  s.round([{ name: kind, input, result }], { text });
}
