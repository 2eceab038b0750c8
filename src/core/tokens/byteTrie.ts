/**
 * A byte trie over a BPE rank table, in typed arrays: every token's UTF-8 bytes lead from the
 * root to a node that holds the token's rank. The rank of two adjacent tokens merged is found
 * by walking the right token's bytes on from the left token's node — a few array reads per
 * byte, no string keys, no allocation. Built straight from js-tiktoken's rank data (its
 * `bpe_ranks` text: lines of `! <first rank> <base64 token> …`), so js-tiktoken's own table
 * (a Map of comma-joined byte strings, ~0.3 s and tens of MB) is never built.
 */
import type { TiktokenBPE } from 'js-tiktoken/lite';

/** Base64 digit values by char code (-1: not a digit). */
const B64 = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;

/**
 * Decodes the base64 token `s[from, to)` into `out`; returns the byte count, or -1 when it
 * is not base64 (padding `=` ends it).
 */
function decodeBase64(s: string, from: number, to: number, out: Uint8Array): number {
  let n = 0;
  let acc = 0;
  let bits = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c === 61) break;
    const v = c < 128 ? (B64[c] ?? -1) : -1;
    if (v < 0 || n >= out.length) return -1;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (acc >> bits) & 0xff;
    }
  }
  return n;
}

/** Golden-ratio multiplier of the edge hash. */
const HASH = 0x9e3779b1;

/** Int32s per edge: the key (`node * 256 + byte`), the node it leads to, that node's rank (-1: none). */
const STRIDE = 3;

/** Bits of the edge filter: 2^21 bits (256 KB), about one in ten absent edges passes it for cl100k_base. */
const FILTER_BITS = 21;

/** Multiplier of the filter's hash (another odd constant than HASH). */
const FILTER_HASH = 0x85ebca6b;

/** Edges from the root: the first 256 slots, by byte. */
const ROOT_SLOTS = 256;

/**
 * The trie. Node 0 is the root (the empty byte string); every other node has one edge into
 * it, and the edge holds the node's rank, so a lookup reads one slot (one cache line) of one
 * array. The root's edges are the first 256 slots (by byte); the others an open-addressing
 * hash of `node * 256 + byte` (at most half full).
 */
export class ByteTrie {
  private table: Int32Array;
  /**
   * One bit per hash of `node * 256 + byte`, set for every edge: most lookups that fail (a
   * token followed by a byte no longer token has) end here, in a table small enough to stay in
   * cache, instead of in the edge table.
   */
  private readonly filter = new Int32Array(1 << (FILTER_BITS - 5));
  private bits: number;
  private nodeCount = 1;
  private edges = 0;

  /** An empty trie (its table grows as tokens are added). */
  constructor() {
    this.bits = 12;
    this.table = emptyTable(this.bits);
  }

  /**
   * The slot of the edge from `node` by `byte` (read it with {@link edgeNode} and
   * {@link edgeRank}), or -1: no token continues that way.
   */
  edge(node: number, byte: number): number {
    const table = this.table;
    if (node === 0) {
      const slot = byte * STRIDE;
      return (table[slot + 1] ?? -1) < 0 ? -1 : slot;
    }
    const key = node * 256 + byte;
    const h = Math.imul(key, FILTER_HASH) >>> (32 - FILTER_BITS);
    if (((this.filter[h >>> 5] ?? 0) & (1 << (h & 31))) === 0) return -1;
    const mask = (1 << this.bits) - 1;
    for (let i = Math.imul(key, HASH) >>> (32 - this.bits); ; i = (i + 1) & mask) {
      const slot = (ROOT_SLOTS + i) * STRIDE;
      const k = table[slot] ?? -1;
      if (k === key) return slot;
      if (k === -1) return -1;
    }
  }

  /** The node an edge leads to. */
  edgeNode(slot: number): number {
    return this.table[slot + 1] ?? -1;
  }

  /** The rank of the token an edge leads to, or -1 (a prefix of tokens only). */
  edgeRank(slot: number): number {
    return this.table[slot + 2] ?? -1;
  }

  /** The node reached from `node` by `byte`, or -1 (no token continues that way). */
  child(node: number, byte: number): number {
    const slot = this.edge(node, byte);
    return slot < 0 ? -1 : this.edgeNode(slot);
  }

  /** Nodes in the trie (the root included). */
  get size(): number {
    return this.nodeCount;
  }

  /** Bytes the trie's table holds. */
  get byteLength(): number {
    return this.table.byteLength + this.filter.byteLength;
  }

  /** Adds the token `bytes[0, n)` (n ≥ 1) with `rank` (a later rank for the same bytes wins, as in js-tiktoken). */
  insert(bytes: Uint8Array, n: number, rank: number): void {
    let node = 0;
    let slot = -1;
    for (let i = 0; i < n; i++) {
      const b = bytes[i] ?? 0;
      slot = this.edge(node, b);
      if (slot < 0) slot = this.addEdge(node, b, this.nodeCount++);
      node = this.edgeNode(slot);
    }
    if (slot >= 0) this.table[slot + 2] = rank;
  }

  /** Adds an edge to a new node (no rank yet); returns its slot. */
  private addEdge(node: number, byte: number, to: number): number {
    if (node === 0) {
      const slot = byte * STRIDE;
      this.table[slot + 1] = to;
      return slot;
    }
    if ((this.edges + 1) * 2 > 1 << this.bits) this.rehash(this.bits + 1);
    const key = node * 256 + byte;
    const h = Math.imul(key, FILTER_HASH) >>> (32 - FILTER_BITS);
    this.filter[h >>> 5] = (this.filter[h >>> 5] ?? 0) | (1 << (h & 31));
    return this.put(key, to, -1);
  }

  private put(key: number, to: number, rank: number): number {
    const mask = (1 << this.bits) - 1;
    let i = Math.imul(key, HASH) >>> (32 - this.bits);
    while ((this.table[(ROOT_SLOTS + i) * STRIDE] ?? -1) !== -1) i = (i + 1) & mask;
    const slot = (ROOT_SLOTS + i) * STRIDE;
    this.table[slot] = key;
    this.table[slot + 1] = to;
    this.table[slot + 2] = rank;
    this.edges++;
    return slot;
  }

  private rehash(bits: number): void {
    const old = this.table;
    this.bits = bits;
    this.table = emptyTable(bits);
    this.table.set(old.subarray(0, ROOT_SLOTS * STRIDE));
    this.edges = 0;
    for (let slot = ROOT_SLOTS * STRIDE; slot < old.length; slot += STRIDE) {
      const k = old[slot] ?? -1;
      if (k !== -1) this.put(k, old[slot + 1] ?? -1, old[slot + 2] ?? -1);
    }
  }
}

/** A table of 256 root slots and 2^bits hash slots, all empty (-1). */
function emptyTable(bits: number): Int32Array {
  return new Int32Array((ROOT_SLOTS + (1 << bits)) * STRIDE).fill(-1);
}

/**
 * The trie of `ranks.bpe_ranks`, or undefined when the data is not in the expected format
 * (another js-tiktoken version; a unit test fails then). Takes a few tens of ms for
 * cl100k_base (see `npm run bench -- tokenizer`, which prints the build time and size).
 */
export function buildByteTrie(ranks: TiktokenBPE): ByteTrie | undefined {
  const text = ranks.bpe_ranks;
  if (typeof text !== 'string') return undefined;
  const trie = new ByteTrie();
  const scratch = new Uint8Array(256);
  let tokens = 0;
  for (let lineStart = 0; lineStart < text.length;) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    // `<marker> <first rank> <token> <token> …`
    const a = text.indexOf(' ', lineStart);
    if (a >= 0 && a < lineEnd) {
      let b = text.indexOf(' ', a + 1);
      if (b < 0 || b > lineEnd) b = lineEnd;
      let rank = Number.parseInt(text.slice(a + 1, b), 10);
      if (!Number.isInteger(rank) || rank < 0) return undefined;
      for (let s = b + 1; s < lineEnd;) {
        let e = text.indexOf(' ', s);
        if (e < 0 || e > lineEnd) e = lineEnd;
        const n = decodeBase64(text, s, e, scratch);
        if (n <= 0) return undefined;
        trie.insert(scratch, n, rank++);
        tokens++;
        s = e + 1;
      }
    }
    lineStart = lineEnd + 1;
  }
  return tokens > 0 ? trie : undefined;
}
