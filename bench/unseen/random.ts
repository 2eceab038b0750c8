/**
 * The seeded randomness of the unseen-session generator: a mulberry32 PRNG and what is drawn
 * from it — code-, log- and prose-like text, identifiers, tool-use ids and thinking
 * signatures. Each case seeds its own `Rng`, so a case's transcript is the same bytes whether
 * it is generated alone or with the others.
 */

/** The vocabulary of identifiers and prose. */
export const WORDS: readonly string[] = (
  'state message token window compact summary render widget config parse value index buffer ' +
  'stream request response handler session cache prompt result error module export import ' +
  'function return const string number boolean array object promise async await class interface'
).split(' ');

const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.split('');

/** What `Rng.text` writes: source code, server log lines, or sentences of WORDS. */
export type TextKind = 'code' | 'log' | 'prose';

/** A seeded PRNG (mulberry32) with the generator's draws; the same seed gives the same sequence. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** The next number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** One element of a non-empty array. */
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)] as T;
  }

  /** A whole number in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** A camel-case identifier with a number, e.g. `cacheRender42`. */
  ident(): string {
    return this.pick(WORDS) + this.pick(WORDS).replace(/^./, (c) => c.toUpperCase()) + this.int(0, 99);
  }

  /** About `chars` characters (exactly `chars` once long enough) of text of a kind, one line or sentence a line. */
  text(chars: number, kind: TextKind = 'code'): string {
    const out: string[] = [];
    let n = 0;
    while (n < chars) {
      const l =
        kind === 'code'
          ? this.codeLine()
          : kind === 'log'
            ? this.logLine()
            : Array.from({ length: this.int(8, 20) }, () => this.pick(WORDS)).join(' ') + '.';
      out.push(l);
      n += l.length + 1;
    }
    return out.join('\n').slice(0, chars);
  }

  /** An Anthropic-style tool-use id (`toolu_01` and 22 base-62 characters). */
  toolId(): string {
    return 'toolu_01' + Array.from({ length: 22 }, () => this.pick(B62)).join('');
  }

  /** A thinking signature: 300 base-62 characters and `==`. */
  signature(): string {
    return Array.from({ length: 300 }, () => this.pick(B62)).join('') + '==';
  }

  private codeLine(): string {
    const k = this.int(0, 5);
    if (k === 0)
      return `export function ${this.ident()}(${this.ident()}: ${this.pick(['string', 'number', 'Message[]'])}): ${this.pick(['void', 'string', 'Promise<void>'])} {`;
    if (k === 1)
      return `  const ${this.ident()} = await ${this.ident()}.${this.ident()}(${this.ident()}, ${this.int(0, 9999)});`;
    if (k === 2)
      return `  if (${this.ident()} > ${this.int(0, 500)}) return ${this.ident()}.${this.ident()}('${this.pick(WORDS)}-${this.int(0, 99)}');`;
    if (k === 3)
      return `  // ${this.pick(WORDS)} ${this.pick(WORDS)} ${this.pick(WORDS)} ${this.pick(WORDS)} ${this.pick(WORDS)} of src/${this.pick(WORDS)}/${this.ident()}.ts`;
    if (k === 4) return `}`;
    return `  ${this.ident()}.${this.ident()} = { ${this.ident()}: ${this.int(0, 1e6)}, ${this.ident()}: "${this.pick(WORDS)}" };`;
  }

  private logLine(): string {
    const two = (lo: number, hi: number) => String(this.int(lo, hi)).padStart(2, '0');
    const day = two(10, 28);
    const hour = two(0, 23);
    const minute = two(0, 59);
    const second = two(0, 59);
    const ms = this.int(100, 999);
    const level = this.pick(['INFO', 'WARN', 'DEBUG', 'ERROR']);
    return `2025-11-${day}T${hour}:${minute}:${second}.${ms}Z ${level} [worker-${this.int(0, 15)}] ${this.pick(WORDS)} id=${this.int(1e5, 1e6).toString(16)} ${this.pick(WORDS)}=${this.int(0, 9999)} path=/api/v1/${this.pick(WORDS)}/${this.int(1, 9999)} took ${this.int(1, 900)}ms`;
  }
}
