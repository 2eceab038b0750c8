/**
 * Damages a real transcript (JSONL text) the ways real sessions we have not seen are damaged,
 * deterministically, so the replay tests can ask whether the pipeline still sends only valid
 * requests: an interrupted tool call followed by the agent's own compaction, usage records
 * without a time or with `null` usage, dated model ids, tool results that are screenshots
 * (every other one a 2560×1440 retina capture, over the API's 2000 px once a request holds
 * more than 20 images),
 * user text with an empty block and a lone surrogate, a 500 KB tool result, a repeated
 * tool_use id, one round of 24 parallel calls whose results (16 KB each, under the
 * per-result spill size) together hold more than a 100k window, one round of 22 retina
 * screenshots, a 440 KB log pasted into a user message, one call whose input holds about
 * 60 000 tokens (a Write by an agent with a 64k answer limit: more than a 100k window leaves),
 * and an answer of about 60 000 tokens that ends a turn (the model printing a whole file).
 */

import { pngBase64 } from './images';

type Json = Record<string, unknown>;
type Block = Json & { type?: string };

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PNG_RETINA = pngBase64(2560, 1440);

function blocksOf(rec: Json): Block[] | undefined {
  const message = rec.message as { content?: unknown } | undefined;
  return Array.isArray(message?.content) ? (message.content as Block[]) : undefined;
}

function roleOf(rec: Json): string | undefined {
  return (rec.message as { role?: string } | undefined)?.role;
}

/** The transcript `text` with every damage described above applied; still valid transcript JSONL. */
export function damageTranscript(text: string): string {
  const recs = text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Json);
  // An interrupted call: the first tool results past 40 % of the file never came, and the agent compacted.
  const cut = recs.findIndex(
    (r, i) =>
      i > recs.length * 0.4 && r.kind === 'message' && (blocksOf(r) ?? []).some((b) => b.type === 'tool_result'),
  );
  if (cut >= 0) {
    const rest = (blocksOf(recs[cut] as Json) ?? []).filter((b) => b.type !== 'tool_result');
    const compaction = { kind: 'compaction', summary: 'The session was interrupted.', tokensBefore: 50_000 };
    if (rest.length > 0) {
      (recs[cut] as { message: { content: Block[] } }).message.content = rest;
      recs.splice(cut + 1, 0, compaction);
    } else recs.splice(cut, 1, compaction);
  }
  // ~100k tokens of text arriving in one round (16 KB results, each under the spill size).
  widenOneRound(recs, 0.6, 24, parallelResult);
  // 22 retina screenshots at once: over 20 images, each over the API's 2000 px for such requests.
  widenOneRound(recs, 0.8, 22, (k) => [
    { type: 'text', text: `screenshot ${k}` },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_RETINA } },
  ]);
  let usages = 0;
  let messages = 0;
  let hugeDone = false;
  let screenshots = 0;
  let pasteDone = false;
  let bigInputDone = false;
  let bigAnswerDone = false;
  let lastToolUseId: string | undefined;
  for (const r of recs) {
    if (r.kind === 'usage') {
      delete r.at;
      if (typeof r.model === 'string') r.model = `${r.model}-20251101`;
      if (++usages % 10 === 0) r.usage = null;
      continue;
    }
    const blocks = r.kind === 'message' ? blocksOf(r) : undefined;
    if (!blocks) continue;
    messages++;
    for (const b of blocks) {
      if (b.type === 'tool_result' && messages % 17 === 0)
        b.content = [
          { type: 'text', text: 'screenshot' },
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: ++screenshots % 2 === 0 ? PNG_RETINA : PNG_1PX },
          },
        ];
      else if (b.type === 'tool_result' && !hugeDone && messages > 60) {
        b.content = 'x'.repeat(500_000);
        hugeDone = true;
      }
      if (b.type === 'tool_use') {
        if (!bigInputDone && messages > 50) {
          b.input = { ...(b.input as Json), content: bigWrite() };
          bigInputDone = true;
        }
        if (messages % 41 === 0 && lastToolUseId) b.id = lastToolUseId;
        lastToolUseId = b.id as string;
      }
    }
    if (roleOf(r) === 'assistant' && !bigAnswerDone && messages > 70 && blocks.every((b) => b.type === 'text')) {
      blocks.push({ type: 'text', text: bigWrite() });
      bigAnswerDone = true;
    }
    if (roleOf(r) === 'user' && messages % 23 === 0)
      blocks.push({ type: 'text', text: '' }, { type: 'text', text: 'a broken \ud800 half' });
    if (roleOf(r) === 'user' && !pasteDone && messages > 80 && blocks.some((b) => b.type === 'text')) {
      blocks.push({ type: 'text', text: pastedLog() });
      pasteDone = true;
    }
  }
  return recs.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

/** 16 KB of distinct code-like text for parallel result `k`. */
function parallelResult(k: number): string {
  return Array.from({ length: 200 }, (_, i) => `export const item${k}_${i} = load('part-${k}-${i}.json'); // ${k}:${i}`)
    .join('\n')
    .slice(0, 16_000);
}

/**
 * The first single-call round past `from` (a share of the file) becomes `count` parallel calls
 * of the same tool, call k answered with `result(k)`.
 */
function widenOneRound(recs: Json[], from: number, count: number, result: (k: number) => unknown): void {
  const at = recs.findIndex((r, i) => {
    if (i < recs.length * from || r.kind !== 'message' || roleOf(r) !== 'assistant') return false;
    const uses = (blocksOf(r) ?? []).filter((b) => b.type === 'tool_use');
    const next = recs[i + 1];
    const results = next && roleOf(next) === 'user' ? (blocksOf(next) ?? []) : [];
    return uses.length === 1 && results.length === 1 && results[0]?.type === 'tool_result';
  });
  if (at < 0) return;
  const use = (blocksOf(recs[at] as Json) ?? []).find((b) => b.type === 'tool_use') as Block;
  const others = (blocksOf(recs[at] as Json) ?? []).filter((b) => b.type !== 'tool_use');
  const ids = Array.from({ length: count }, (_, k) => `${String(use.id)}_p${k}`);
  (recs[at] as { message: { content: Block[] } }).message.content = [...others, ...ids.map((id) => ({ ...use, id }))];
  (recs[at + 1] as { message: { content: Block[] } }).message.content = ids.map((id, k) => ({
    type: 'tool_result',
    tool_use_id: id,
    content: result(k),
  }));
}

/** About 60 000 tokens of distinct code, as one Write's content. */
function bigWrite(): string {
  return Array.from({ length: 3_100 }, (_, i) => `export function step${i}(a, b) { return a * ${i} + b; }`).join('\n');
}

/** A 440 KB log, as a user pastes one: over the chat's paste threshold (100 000 characters). */
function pastedLog(): string {
  return Array.from(
    { length: 6_000 },
    (_, i) => `2026-01-01T00:00:${String(i % 60).padStart(2, '0')} INFO worker-${i % 7} processed job ${i} status=ok`,
  ).join('\n');
}
