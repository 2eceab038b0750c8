/**
 * Byte-pair merging of a short byte string on a {@link ByteTrie}: tiktoken's merge (the pair
 * whose merged bytes have the lowest rank first, leftmost on a tie) with tokens as trie nodes,
 * in preallocated typed arrays. A pair's rank is found by walking the right token's bytes from
 * the left token's node, once, and again only when a merge changes the pair; the first step
 * (two single bytes) is a table read.
 */
import type { ByteTrie } from './byteTrie';

/** Bytes the work arrays hold at first (they grow for a longer string). */
const INITIAL_BYTES = 64;

/** A pair's rank when its tokens do not merge (above every rank). */
const NONE = 0x7fffffff;

/**
 * Reusable work arrays for merging on one trie (not re-entrant; one per trie). Tokens are
 * named by the offset of their first byte: a linked list in byte order, so a merge unlinks
 * the right token and nothing moves.
 */
export class TrieMerger {
  /** The token after token i (its first byte's offset; the length: none). */
  private next = new Int32Array(INITIAL_BYTES + 1);
  /** The token before token i. */
  private prev = new Int32Array(INITIAL_BYTES + 1);
  /** Each token's trie node (-1: its bytes are no token nor prefix of one). */
  private node = new Int32Array(INITIAL_BYTES + 1);
  /** The rank of token i merged with the next token (NONE: they do not merge). */
  private pairRank = new Int32Array(INITIAL_BYTES + 1);
  /** The node of token i merged with the next token. */
  private pairNode = new Int32Array(INITIAL_BYTES + 1);
  /**
   * Every two bytes merged — the first step of every merge, precomputed: at
   * `(first * 256 + second) * 2` the node (-1: none), then the rank (NONE: they do not merge).
   */
  private readonly twoBytes = new Int32Array(2 * 65_536);
  /** The node of every single byte, or -1. */
  private readonly oneByte = new Int32Array(256);

  constructor(private readonly trie: ByteTrie) {
    for (let a = 0; a < 256; a++) {
      const first = trie.child(0, a);
      this.oneByte[a] = first;
      for (let b = 0; b < 256; b++) {
        const slot = first < 0 ? -1 : trie.edge(first, b);
        const r = slot < 0 ? -1 : trie.edgeRank(slot);
        this.twoBytes[(a * 256 + b) * 2] = slot < 0 ? -1 : trie.edgeNode(slot);
        this.twoBytes[(a * 256 + b) * 2 + 1] = r < 0 ? NONE : r;
      }
    }
  }

  /**
   * Tokens of `bytes[from, to)` after merging — the count js-tiktoken's `encode` gives for
   * that byte string as one piece. Each merge rescans the pairs: quadratic in the length, so
   * callers give it short parts (tiktoken.ts: at most 32 bytes).
   */
  count(bytes: Uint8Array, from: number, to: number): number {
    const n = to - from;
    if (n <= 1) return Math.max(0, n);
    if (n >= this.next.length) this.grow(n);
    const { next, prev, node, pairRank, pairNode, twoBytes, oneByte } = this;
    let b0 = bytes[from] ?? 0;
    for (let i = 0; i < n; i++) {
      next[i] = i + 1;
      prev[i] = i - 1;
      node[i] = oneByte[b0] ?? -1;
      if (i + 1 < n) {
        const b1 = bytes[from + i + 1] ?? 0;
        const k = (b0 * 256 + b1) * 2;
        pairNode[i] = twoBytes[k] ?? -1;
        pairRank[i] = twoBytes[k + 1] ?? NONE;
        b0 = b1;
      } else pairRank[i] = NONE;
    }
    let tokens = n;
    let best = -1;
    let bestRank = NONE;
    let scanned = true;
    for (;;) {
      // The runner-up of a scan: the lowest pair after `best` (leftmost on a tie).
      let second = -1;
      let secondRank = NONE;
      if (scanned) {
        // A dense scan in byte order (an absorbed token's slot holds NONE): leftmost lowest rank.
        best = -1;
        bestRank = NONE;
        for (let i = 0; i < n; i++) {
          const r = pairRank[i] ?? NONE;
          if (r < bestRank) {
            second = best;
            secondRank = bestRank;
            best = i;
            bestRank = r;
          } else if (r < secondRank) {
            second = i;
            secondRank = r;
          }
        }
      }
      if (best < 0 || bestRank === NONE) return tokens;
      // The next token is absorbed into `best`.
      const gone = next[best] ?? n;
      const after = next[gone] ?? n;
      node[best] = pairNode[best] ?? -1;
      pairRank[gone] = NONE;
      next[best] = after;
      if (after < n) prev[after] = best;
      tokens--;
      if (after < n) this.pair(bytes, from, best, after, next[after] ?? n);
      else pairRank[best] = NONE;
      const before = prev[best] ?? -1;
      if (before >= 0) this.pair(bytes, from, before, best, after);
      // Only the pairs at `before` and `best` changed (and `gone`'s went): when the scan's
      // runner-up is none of them, the next merge is the lowest of it and those two — no scan.
      if (scanned && second !== gone && second !== before) {
        let nextBest = second;
        let nextRank = second < 0 ? NONE : secondRank;
        const atBest = pairRank[best] ?? NONE;
        if (atBest < nextRank || (atBest === nextRank && best < nextBest)) {
          nextBest = best;
          nextRank = atBest;
        }
        const atBefore = before < 0 ? NONE : (pairRank[before] ?? NONE);
        if (atBefore < nextRank || (atBefore === nextRank && before < nextBest)) {
          nextBest = before;
          nextRank = atBefore;
        }
        best = nextBest;
        bestRank = nextRank;
        scanned = false;
      } else scanned = true;
    }
  }

  private grow(n: number): void {
    this.next = new Int32Array(n + 1);
    this.prev = new Int32Array(n + 1);
    this.node = new Int32Array(n + 1);
    this.pairRank = new Int32Array(n + 1);
    this.pairNode = new Int32Array(n + 1);
  }

  /** Finds the rank and node of token `left` merged with the token `right` (its bytes end at `end`). */
  private pair(bytes: Uint8Array, from: number, left: number, right: number, end: number): void {
    const trie = this.trie;
    let at = this.node[left] ?? -1;
    let slot = -1;
    for (let b = from + right; at >= 0 && b < from + end; b++) {
      slot = trie.edge(at, bytes[b] ?? 0);
      at = slot < 0 ? -1 : trie.edgeNode(slot);
    }
    const r = at >= 0 ? trie.edgeRank(slot) : -1;
    this.pairNode[left] = at;
    this.pairRank[left] = r < 0 ? NONE : r;
  }
}
