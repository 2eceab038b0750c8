/**
 * Deterministic ids in the API's formats (`msg_01…`, `toolu_01…`, `srvtoolu_01…`, `req_011…`) from per-server
 * counters, so runs are reproducible, and the signature the scripted model puts on thinking.
 */
import { createHash } from 'node:crypto';

/** Issues ids; a fresh instance starts every counter at 1. */
export class IdSource {
  private readonly counters = new Map<string, number>();

  /** The next id with `prefix`, e.g. `toolu_01Fake000000000000000003`. */
  next(prefix: 'msg_01' | 'toolu_01' | 'srvtoolu_01' | 'req_011'): string {
    const n = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, n);
    return `${prefix}Fake${n.toString().padStart(18, '0')}`;
  }
}

/** The signature of a scripted thinking block (base64, like the API's, but not verifiable by it). */
export function thinkingSignature(thinking: string): string {
  return createHash('sha256').update(`fake-claude thinking:${thinking}`).digest('base64');
}
