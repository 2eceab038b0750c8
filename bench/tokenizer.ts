/**
 * `npm run bench -- tokenizer`: how long the tiktoken counter (src/core/tokens/tiktoken.ts)
 * takes on 200 KB (UTF-16 units) of each content class a workspace can hold — English prose,
 * this repository's own source, CJK (running text with punctuation, and uniformly random
 * ideographs: the worst case, nothing repeats), emoji ZWJ sequences, combining marks, long
 * letter runs without spaces, base64 — against English prose. Each class is counted by a fresh
 * counter (its piece memo empty), best of three. The target (issue 34): every class within 3×
 * the time of English prose (wall clock; the CPU time and the load average are printed too,
 * for a busy machine). Prints the one-time cost of a counter's rank table (the byte trie,
 * src/core/tokens/byteTrie.ts: first build in this process, its size), a table and a last JSON
 * line.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import cl100kBase from 'js-tiktoken/ranks/cl100k_base';
import { buildByteTrie } from '../src/core/tokens/byteTrie';
import { createTiktokenTokenizer } from '../src/core/tokens/tiktoken';
import { prng } from './syntheticHistory';

const SIZE = 200_000;
const RUNS = 3;
const TARGET_RATIO = 3;

/** `SIZE` characters of `next()` pieces, never ending inside a surrogate pair. */
function fill(next: () => string): string {
  let s = '';
  while (s.length < SIZE) s += next();
  const cut = s.slice(0, SIZE);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** Every `.ts` file under `dir`, concatenated. */
function sources(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out += sources(path);
    else if (name.endsWith('.ts')) out += readFileSync(path, 'utf8');
    if (out.length >= SIZE) break;
  }
  return out;
}

/** The content classes, each SIZE characters, from a fixed seed. */
function samples(): Record<string, string> {
  const rand = prng(34);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const words = readFileSync(new URL('../docs/ARCHITECTURE.md', import.meta.url), 'utf8')
    .split(/[^A-Za-z']+/)
    .filter((w) => w.length > 0);
  const ideograph = (): string => String.fromCodePoint(0x4e00 + Math.floor(rand() * 0x5000));
  const common = Array.from({ length: 3_000 }, ideograph);
  const emoji = ['👨‍👩‍👧‍👦', '👩🏽‍💻', '🏳️‍🌈', '🧑🏿‍🤝‍🧑🏻', '👍🏼', '🐈‍⬛', '❤️‍🔥'];
  const marks = ['\u0301', '\u0302', '\u0303', '\u0308', '\u0327', '\u0331', '\u20dd'];
  const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  return {
    'English prose': fill(() => `${Array.from({ length: 12 }, () => pick(words)).join(' ')}. `),
    'source code': fill(() => sources(new URL('../src/core', import.meta.url).pathname)),
    'CJK text': fill(() => `${Array.from({ length: 18 }, () => pick(common)).join('')}，${pick(common)}。`),
    'CJK, random': fill(ideograph),
    'emoji ZWJ': fill(() => pick(emoji)),
    'combining marks': fill(() => `${pick(['a', 'e', 'o', 'u'])}${pick(marks)}${pick(marks)}${pick(marks)}`),
    'letter runs': fill(() => String.fromCharCode(97 + Math.floor(rand() * 26))),
    base64: fill(() => pick([...b64])),
  };
}

/**
 * Best of RUNS timings of counting `text` with a fresh counter — wall clock (ms) and this
 * process's CPU time (cpu, ms: on a busy machine, time spent descheduled is not the counter's)
 * — and its count.
 */
function time(text: string): { ms: number; cpu: number; tokens: number } {
  let best = Infinity;
  let bestCpu = Infinity;
  let tokens = 0;
  for (let i = 0; i < RUNS; i++) {
    // A copy of the rank table is a new key: a counter with an empty piece memo.
    const tk = createTiktokenTokenizer({ name: 'cl100k_base', ranks: { ...cl100kBase } });
    tk.count('warm up');
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    tokens = tk.count(text);
    best = Math.min(best, performance.now() - t0);
    const c = process.cpuUsage(c0);
    bestCpu = Math.min(bestCpu, (c.user + c.system) / 1000);
  }
  return { ms: best, cpu: bestCpu, tokens };
}

/** The first build of cl100k_base's byte trie in this process (ms, cold) and its size (MB). */
function trieCost(): { ms: number; mb: number } {
  const t0 = performance.now();
  const trie = buildByteTrie({ ...cl100kBase });
  return { ms: performance.now() - t0, mb: (trie?.byteLength ?? 0) / 1e6 };
}

/** Runs the bench: the trie's cost, one row per class, then the JSON line. */
export function runTokenizerBench(): number {
  const trie = trieCost();
  console.log(`rank table → byte trie: ${trie.ms.toFixed(0)} ms (first build), ${trie.mb.toFixed(1)} MB`);
  const rows = Object.entries(samples()).map(([name, text]) => ({ name, chars: text.length, ...time(text) }));
  const prose = rows[0]?.ms ?? 1;
  const proseCpu = rows[0]?.cpu ?? 1;
  console.log(`load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`);
  console.log(
    `class               chars     tokens      ms   × prose   cpu ms   × prose   (target ≤ ${TARGET_RATIO}×)`,
  );
  const out = rows.map((r) => ({ ...r, ratio: r.ms / prose, cpuRatio: r.cpu / proseCpu }));
  for (const r of out)
    console.log(
      `${r.name.padEnd(17)} ${String(r.chars).padStart(7)} ${String(r.tokens).padStart(10)} ${r.ms.toFixed(0).padStart(7)} ${r.ratio.toFixed(2).padStart(8)} ${r.cpu.toFixed(0).padStart(8)} ${r.cpuRatio.toFixed(2).padStart(8)}`,
    );
  const worst = Math.max(...out.map((r) => r.ratio));
  console.log(
    JSON.stringify({
      bench: 'tokenizer',
      chars: SIZE,
      trie: { buildMs: Math.round(trie.ms), mb: +trie.mb.toFixed(1) },
      classes: Object.fromEntries(
        out.map((r) => [
          r.name,
          {
            ms: Math.round(r.ms),
            tokens: r.tokens,
            ratio: +r.ratio.toFixed(2),
            cpuMs: Math.round(r.cpu),
            cpuRatio: +r.cpuRatio.toFixed(2),
          },
        ]),
      ),
      worstRatio: +worst.toFixed(2),
      worstCpuRatio: +Math.max(...out.map((r) => r.cpuRatio)).toFixed(2),
      withinTarget: worst <= TARGET_RATIO,
    }),
  );
  return 0;
}
