/**
 * Retention as forward-reference recall (FRR): before each request, which identifiers will the
 * model need? Those its REAL next answer (the transcript's next assistant message) mentions
 * that had already appeared earlier in the session — and FRR is the share of them still in the
 * context the replay sends. Identifiers are extracted as the compaction retention check does
 * (src/core/compaction/retention.ts: paths, symbols, URLs, error lines; numbers are only taken
 * from the user's words, so an answer has none). Measured with and without the text of
 * summary blocks: "with" counts the scripted summaries' text, whose keep rule (summaryKeep.ts)
 * is calibrated so that they carry about the share of summary-only identifiers the real
 * summaries of the fixtures carried, pooled over their compactions (summaryCarry.ts measures
 * both): the recall with simulated summaries that keep about as much as real ones — not an
 * upper bound, and not what any one real summary would have kept.
 * Requests are weighted by their identifier count (a pooled share).
 */
import { containsWord, extractIdentifiers, messagesText } from '../src/core/compaction/retention';
import type { Message } from '../src/core/conversation/conversationModel';
import type { TranscriptEvent } from './transcript';

/** Kinds of identifiers FRR counts. */
export type FrrKind = 'path' | 'symbol' | 'url' | 'error';

/** The kinds, in report order. */
export const FRR_KINDS: readonly FrrKind[] = ['path', 'symbol', 'url', 'error'];

/** One identifier the next answer refers to. */
export interface Reference {
  readonly kind: FrrKind;
  readonly id: string;
}

/**
 * For each usage event (by its index in `events`), the identifiers of the transcript's next
 * message — when it is the assistant's — that appeared in an earlier message. Depends only on
 * the transcript, so a bench computes it once for every replay of it.
 */
export function forwardReferences(events: readonly TranscriptEvent[]): Map<number, Reference[]> {
  const earlier: Record<FrrKind, Set<string>> = {
    path: new Set(),
    symbol: new Set(),
    url: new Set(),
    error: new Set(),
  };
  const out = new Map<number, Reference[]>();
  events.forEach((e, i) => {
    if (e.kind === 'usage') {
      const next = events[i + 1];
      if (e.usage === null || next?.kind !== 'message' || next.message.role !== 'assistant') return;
      const ids = extractIdentifiers([next.message]);
      out.set(
        i,
        FRR_KINDS.flatMap((kind) =>
          [...ids[kind].keys()].filter((id) => earlier[kind].has(id)).map((id) => ({ kind, id })),
        ),
      );
    } else if (e.kind === 'message') {
      const ids = extractIdentifiers([e.message]);
      for (const kind of FRR_KINDS) for (const id of ids[kind].keys()) earlier[kind].add(id);
    }
  });
  return out;
}

/** Referenced and kept counts, with and without summary text. */
export interface FrrCount {
  readonly referenced: number;
  readonly kept: number;
  readonly keptWithoutSummaries: number;
}

/** FRR of a replay: overall and by kind. */
export interface FrrTotals {
  readonly overall: FrrCount;
  readonly byKind: Readonly<Record<FrrKind, FrrCount>>;
}

/** The share kept, or `null` when nothing was referenced. */
export function frrShare(c: FrrCount, withSummaries = true): number | null {
  return c.referenced === 0 ? null : (withSummaries ? c.kept : c.keptWithoutSummaries) / c.referenced;
}

interface MessageText {
  readonly plain: string;
  readonly summaries: string;
}

/** Accumulates FRR over the requests of one replay. */
export class FrrTally {
  private readonly counts: Record<FrrKind, { referenced: number; kept: number; keptWithoutSummaries: number }> = {
    path: { referenced: 0, kept: 0, keptWithoutSummaries: 0 },
    symbol: { referenced: 0, kept: 0, keptWithoutSummaries: 0 },
    url: { referenced: 0, kept: 0, keptWithoutSummaries: 0 },
    error: { referenced: 0, kept: 0, keptWithoutSummaries: 0 },
  };
  private readonly texts = new WeakMap<Message, MessageText>();

  /**
   * Counts the references of one request against the messages it sends. Paths, URLs and
   * symbols are looked for message by message, newest first (most references are recent);
   * error lines, whose rule spans the whole text, against the joined text.
   */
  add(sent: readonly Message[], refs: readonly Reference[]): void {
    if (refs.length === 0) return;
    const texts = sent.map((m) => this.textOf(m)).reverse();
    const joined = lazy(() =>
      texts
        .map((t) => t.plain)
        .reverse()
        .join('\n'),
    );
    const summaries = lazy(() =>
      texts
        .map((t) => t.summaries)
        .filter((x) => x !== '')
        .reverse()
        .join('\n'),
    );
    const norm = lazy(() => normalise(joined()));
    const normWith = lazy(() => `${norm()} ${normalise(summaries())}`);
    for (const r of refs) {
      const c = this.counts[r.kind];
      c.referenced++;
      let without: boolean;
      let withSummaries: boolean;
      if (r.kind === 'error') {
        without = present(r, joined(), norm);
        withSummaries = without || present(r, `${joined()}\n${summaries()}`, normWith);
      } else {
        without = texts.some((t) => present(r, t.plain, norm));
        withSummaries = without || texts.some((t) => t.summaries !== '' && present(r, t.summaries, norm));
      }
      if (without) c.keptWithoutSummaries++;
      if (withSummaries) c.kept++;
    }
  }

  /** The totals so far. */
  totals(): FrrTotals {
    const byKind = Object.fromEntries(FRR_KINDS.map((k) => [k, { ...this.counts[k] }])) as Record<FrrKind, FrrCount>;
    const overall = FRR_KINDS.reduce<FrrCount>(
      (a, k) => ({
        referenced: a.referenced + byKind[k].referenced,
        kept: a.kept + byKind[k].kept,
        keptWithoutSummaries: a.keptWithoutSummaries + byKind[k].keptWithoutSummaries,
      }),
      { referenced: 0, kept: 0, keptWithoutSummaries: 0 },
    );
    return { overall, byKind };
  }

  private textOf(m: Message): MessageText {
    let t = this.texts.get(m);
    if (!t) {
      const summaries = m.blocks.flatMap((b) => (b.type === 'summary' ? [b.text] : []));
      t = {
        plain: messagesText([{ ...m, blocks: m.blocks.filter((b) => b.type !== 'summary') }]),
        summaries: summaries.join('\n'),
      };
      this.texts.set(m, t);
    }
    return t;
  }
}

/**
 * Whether a reference is still in `hay`, by the retention check's rules (retention.ts, whose
 * matcher is not exported): paths and URLs as substrings, symbols as whole words, an error line
 * by its text, its first 40 characters normalised, or 60 % of its words.
 */
export function present(r: Reference, hay: string, norm: () => string): boolean {
  switch (r.kind) {
    case 'path':
    case 'url':
      return hay.includes(r.id);
    case 'symbol':
      return containsWord(hay, r.id);
    case 'error': {
      if (hay.includes(r.id)) return true;
      const n = norm();
      if (n.includes(normalise(r.id).slice(0, 40))) return true;
      const words = [...new Set(normalise(r.id).match(/[a-z][a-z0-9_]{3,}/g) ?? [])];
      return words.length > 0 && words.filter((w) => n.includes(w)).length / words.length >= 0.6;
    }
  }
}

function normalise(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ');
}

function lazy<T>(f: () => T): () => T {
  let done = false;
  let v: T | undefined;
  return () => {
    if (!done) {
      v = f();
      done = true;
    }
    return v as T;
  };
}
