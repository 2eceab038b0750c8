/**
 * Everything the fake server remembers between requests: the script queue, the record of
 * requests, the prompt cache, the context window, ids, and the clock (the injected one plus
 * an offset tests can advance). Also appends each finished API request to the JSONL log.
 */
import { appendFileSync } from 'node:fs';
import { IdSource } from './ids';
import { DEFAULT_WINDOW } from './models';
import { CacheDiagnoser } from './cacheDiagnostics';
import { PromptCache } from './promptCache';
import { ScriptQueue } from './script';
import type { CacheStats, RecordedRequest } from './types';

/** Resolves after `ms` milliseconds of real time, or at once when `signal` aborts (its timer cleared). */
function realSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** Options of the fake server. */
export interface FakeAnthropicOptions {
  /** TCP port on 127.0.0.1; 0 (default) picks a free one. */
  readonly port?: number;
  /** Context window in tokens (default 200 000). */
  readonly window?: number;
  /** Clock of the prompt cache's TTLs and of recorded times (default Date.now). */
  readonly clock?: () => number;
  /** When set, only this key is accepted (401 `authentication_error` otherwise); by default any non-empty key is. */
  readonly apiKey?: string;
  /** JSONL file to append every API request to (default: env FAKE_ANTHROPIC_LOG, if set). */
  readonly logFile?: string;
  /**
   * The waits of `delayMs` and `deltaDelayMs` (called only for a positive wait; default: real
   * timers). `signal` aborts when the client has gone: the wait is over, drop its timer. Tests
   * inject one to hold a response until they release it, or to record the pacing, instead of
   * measuring the wall clock.
   */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** The server's mutable state. */
export class FakeState {
  readonly script = new ScriptQueue();
  readonly cache: PromptCache;
  /** Cache diagnostics fingerprints, by response id. */
  readonly diagnoser = new CacheDiagnoser();
  readonly apiKey: string | undefined;
  readonly logFile: string | undefined;
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  ids = new IdSource();
  window: number;
  private readonly records: RecordedRequest[] = [];
  private offsetMs = 0;
  private readonly clock: () => number;
  private readonly initialWindow: number;
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(opts: FakeAnthropicOptions) {
    this.clock = opts.clock ?? Date.now;
    this.initialWindow = opts.window ?? DEFAULT_WINDOW;
    this.window = this.initialWindow;
    this.apiKey = opts.apiKey;
    this.logFile = opts.logFile ?? (process.env.FAKE_ANTHROPIC_LOG || undefined);
    this.sleep = opts.sleep ?? realSleep;
    this.cache = new PromptCache(() => this.now());
  }

  /** The server's time: the clock plus whatever tests advanced it by. */
  now(): number {
    return this.clock() + this.offsetMs;
  }

  /** Moves the server's time forward (e.g. past a cache TTL). */
  advanceClock(ms: number): void {
    this.offsetMs += ms;
  }

  /** Every API request received, oldest first. */
  get requests(): readonly RecordedRequest[] {
    return this.records;
  }

  /** Starts the record of a request (filled in as it is handled). */
  record(entry: Omit<RecordedRequest, 'seq' | 'at'>): RecordedRequest {
    const rec: RecordedRequest = { seq: this.records.length + 1, at: this.now(), ...entry };
    this.records.push(rec);
    return rec;
  }

  /** Marks an API request as being handled (until {@link finished}). */
  started(): void {
    this.inFlight++;
  }

  /** Marks an API request as handled: its record has its outcome. */
  finished(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.inFlight > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Resolves once no API request is being handled (at once if none is). */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Appends a finished request to the log file, when there is one. */
  log(rec: RecordedRequest): void {
    if (!this.logFile) return;
    const line = {
      at: new Date(rec.at).toISOString(),
      path: rec.path,
      valid: rec.valid,
      ...(rec.error ? { error: rec.error } : {}),
      body: rec.body,
    };
    appendFileSync(this.logFile, `${JSON.stringify(line)}\n`);
  }

  /** Sets the context window (tokens). */
  setWindow(tokens: number): void {
    if (!Number.isInteger(tokens) || tokens < 1) throw new Error(`window must be a positive integer, got ${tokens}`);
    this.window = tokens;
  }

  /** Prompt-cache counters. */
  cacheStats(): CacheStats {
    return this.cache.stats();
  }

  /** Back to the start: no script, no records, empty cache, the initial window, fresh ids, clock offset 0. */
  reset(): void {
    this.script.clear();
    this.records.length = 0;
    this.cache.clear();
    this.diagnoser.clear();
    this.window = this.initialWindow;
    this.ids = new IdSource();
    this.offsetMs = 0;
  }
}
