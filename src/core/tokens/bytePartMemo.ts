/**
 * A memo of token counts keyed by a short byte string, in typed arrays: direct-mapped (a new
 * entry replaces the one in its slot), each entry holding its bytes, so a hit is exact (the
 * bytes are compared, not only their hash). Counting a long run reads its parts straight from
 * its UTF-8 bytes, without a string, a Map or an allocation per part.
 */

/** Slots of the memo (a power of two). */
const SLOTS = 1 << 14;

/** FNV-1a's offset basis and prime (32-bit). */
const FNV_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The FNV-1a hash of `bytes[from, to)`. */
export function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = FNV_BASIS;
  for (let i = from; i < to; i++) h = Math.imul(h ^ (bytes[i] ?? 0), FNV_PRIME);
  return h;
}

/** Remembered counts of byte strings of at most `maxBytes` bytes. */
export class BytePartMemo {
  private readonly keys: Uint8Array;
  private readonly lengths = new Int32Array(SLOTS);
  private readonly hashes = new Int32Array(SLOTS);
  private readonly counts = new Int32Array(SLOTS);

  /** A memo of strings of at most `maxBytes` bytes; longer ones are never remembered. */
  constructor(private readonly maxBytes: number) {
    this.keys = new Uint8Array(SLOTS * maxBytes);
  }

  /** The count remembered for `bytes[from, to)` (hashed to `hash`), or -1. */
  get(bytes: Uint8Array, from: number, to: number, hash: number): number {
    const slot = hash & (SLOTS - 1);
    const n = to - from;
    if (this.lengths[slot] !== n || this.hashes[slot] !== hash) return -1;
    const keys = this.keys;
    const base = slot * this.maxBytes;
    for (let i = 0; i < n; i++) if (keys[base + i] !== bytes[from + i]) return -1;
    return this.counts[slot] ?? -1;
  }

  /** Remembers `count` for `bytes[from, to)` (hashed to `hash`), replacing its slot's entry. */
  set(bytes: Uint8Array, from: number, to: number, hash: number, count: number): void {
    const n = to - from;
    if (n > this.maxBytes || n <= 0) return;
    const slot = hash & (SLOTS - 1);
    const keys = this.keys;
    const base = slot * this.maxBytes;
    for (let i = 0; i < n; i++) keys[base + i] = bytes[from + i] ?? 0;
    this.lengths[slot] = n;
    this.hashes[slot] = hash;
    this.counts[slot] = count;
  }
}
