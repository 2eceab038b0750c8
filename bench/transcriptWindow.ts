/**
 * `npm run bench -- window`: the cost of the chat's virtualised transcript bookkeeping
 * (src/webview/chat/virtualWindow.ts) at 2 000, 20 000 and 200 000 items — estimating every
 * item's height and building the height index (what a resume does), then per scroll frame
 * computing the window, and per measured item updating one height. Prints medians and p95s;
 * asserts nothing (the DOM side is measured by test/vscode/longSession.test.mjs).
 */
import { performance } from 'node:perf_hooks';
import type { ChatItem } from '../src/protocol/chatItems';
import { computeWindow, estimateItemHeight, HeightIndex } from '../src/webview/chat/virtualWindow';

const METRICS = { charsPerLine: 60, lineHeight: 19 };

/** A deterministic mix of short and long user/assistant items, like a long coding session. */
function syntheticItems(n: number): ChatItem[] {
  const items: ChatItem[] = [];
  for (let i = 0; i < n; i++) {
    const long = i % 7 === 0;
    const text = long
      ? `## Answer ${i}\n\n${'The stage validates its input and passes it on. '.repeat(12)}\n\n\`\`\`ts\n${'const x = await step(input);\n'.repeat(8)}\`\`\``
      : `Message ${i}: ${'short text '.repeat(1 + (i % 5))}`;
    items.push(
      i % 2 === 0
        ? { kind: 'user', id: `u${i}`, text, injected: [], turn: i / 2 }
        : { kind: 'assistant', id: `a${i}`, text, streaming: false },
    );
  }
  return items;
}

function stats(samples: number[]): { median: number; p95: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)] ?? 0, p95: s[Math.floor(s.length * 0.95)] ?? 0 };
}

/** Microseconds per call of `fn` over `rounds` calls, as median / p95 of batches of 100. */
function perCall(rounds: number, fn: (k: number) => void): { median: number; p95: number } {
  const batches: number[] = [];
  for (let b = 0; b < rounds / 100; b++) {
    const t0 = performance.now();
    for (let k = 0; k < 100; k++) fn(b * 100 + k);
    batches.push(((performance.now() - t0) * 1000) / 100);
  }
  return stats(batches);
}

/** Runs the bench and prints a table. */
export function runTranscriptWindow(): void {
  const fmt = (n: number) => n.toFixed(2).padStart(9);
  const rows: Array<Record<string, number>> = [];
  console.log(
    'items     build (estimate + index)   window per scroll µs (median/p95)   height update µs (median/p95)   rendered items',
  );
  for (const n of [2_000, 20_000, 200_000]) {
    const items = syntheticItems(n);
    const t0 = performance.now();
    const index = new HeightIndex(items.map((it) => estimateItemHeight(it, METRICS) + 8));
    const buildMs = performance.now() - t0;
    const total = index.total();
    const viewport = 700;
    let rendered = 0;
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const win = perCall(10_000, () => {
      const w = computeWindow(index, { scrollTop: rand() * total, height: viewport, overscan: viewport });
      rendered = Math.max(rendered, w.end - w.start);
    });
    const upd = perCall(10_000, (k) => void index.set(Math.floor(rand() * n), 40 + (k % 300)));
    rows.push({
      items: n,
      buildMs: buildMs,
      windowUsMedian: win.median,
      windowUsP95: win.p95,
      updateUsMedian: upd.median,
      updateUsP95: upd.p95,
      maxRendered: rendered,
    });
    console.log(
      `${String(n).padStart(7)}   ${fmt(buildMs)} ms              ${fmt(win.median)} / ${fmt(win.p95)}            ${fmt(upd.median)} / ${fmt(upd.p95)}          ≤ ${rendered}`,
    );
  }
  console.log(JSON.stringify({ bench: 'window', rows }));
}
