/**
 * The recall tool: checks a call's input, searches or reads the session's compacted history
 * and, in a session handed off from another, that old session's history (see corpus.ts,
 * search.ts, read.ts), and says which of this session's compactions the answer came from. The
 * session binds it (it needs the session's compactions) with {@link recallDefinition}. Pure
 * but for the ports.
 */
import type { CompactionRecord } from '../compaction/types';
import { toWellFormed } from '../platform/text';
import { capOutput, DEFAULT_TOOL_LIMITS, type ToolLimits } from '../tools/limits';
import { formatCount, plural } from '../text/counts';
import { toolError, toolOk, type ToolResult } from '../tools/result';
import { bindTool, type ToolDefinition } from '../tools/toolDefinition';
import { RECALL_MAX_CHARS, RECALL_MAX_HITS, RECALL_SPEC, type RecallInput } from './recallSpec';
import {
  buildCorpus,
  pastSources,
  type PastSession,
  type PastSessionReader,
  type RecallSource,
  type SpilledOutput,
  type SpillReader,
} from './corpus';
import { locateById, locateTurn, pageDocument } from './read';
import { findHits, formatHits, pastWords } from './search';

/** What recall searches and reads. */
export interface RecallContext {
  /**
   * Every compaction of the session, oldest first (restored and orphaned ones too), then, in a
   * session handed off from another, that session's (`pastSources`).
   */
  readonly compactions: readonly RecallSource[];
  readonly spills: readonly SpilledOutput[];
  /** Overrides of read_file's caps (tests use small ones). */
  readonly limits?: Partial<ToolLimits>;
  /** Characters of a read at most; default {@link RECALL_MAX_CHARS}. */
  readonly maxChars?: number;
}

/** A recall result and this session's compactions whose originals or summaries it returned (none on an error). */
export interface RecallOutcome extends ToolResult {
  readonly compactionIds: readonly string[];
}

const HOW =
  'give exactly one of `query` (text or an identifier to search for), `id` (from a search hit) or `turn` (a compacted turn)';

/**
 * Runs one recall call on `ctx`. Never throws; every failure is an error result saying what
 * to do: invalid input, not exactly one of query / id / turn, nothing compacted yet, an
 * unknown id, turn or compaction, an offset past the end. A search without a match is a
 * normal result suggesting broader terms.
 */
export function runRecall(input: unknown, ctx: RecallContext): RecallOutcome {
  const checked = RECALL_SPEC.validate(input);
  if (!checked.ok) return failed(checked.error);
  const q = checked.input;
  const modes = [q.query, q.id, q.turn].filter((x) => x !== undefined).length;
  if (modes !== 1) return failed(`recall: ${modes === 0 ? '' : 'only '}${HOW}.`);
  if (ctx.compactions.length === 0 && ctx.spills.length === 0) {
    return failed(
      'recall: nothing has been compacted in this session yet, and no output was saved to its folder, so there is nothing to recall: the whole conversation is still in your context.',
    );
  }
  if (q.compaction !== undefined && !ctx.compactions.some((c) => c.record.id === q.compaction)) {
    return failed(
      `recall: there is no compaction "${q.compaction}" in this session${ctx.compactions.some((c) => c.past) ? ' or the session it continues' : ''}. ${ctx.compactions.length > 0 ? `Compactions: ${ctx.compactions.map((c) => c.record.id).join(', ')}.` : 'Nothing was compacted yet.'}`,
    );
  }
  const limits = { ...DEFAULT_TOOL_LIMITS, ...ctx.limits };
  const maxChars = ctx.maxChars ?? RECALL_MAX_CHARS;
  const outcome = q.query !== undefined ? search(q.query, q.compaction, ctx) : read(q, ctx, limits, maxChars);
  return { ...outcome, text: toWellFormed(capOutput(outcome.text, maxChars)) };
}

function failed(text: string): RecallOutcome {
  return { ...toolError(text), compactionIds: [] };
}

function search(query: string, compaction: string | undefined, ctx: RecallContext): RecallOutcome {
  const corpus = buildCorpus(ctx.compactions, ctx.spills);
  const hits = findHits(corpus, query, compaction);
  if (hits.length === 0) {
    const past = ctx.compactions.find((c) => c.past)?.past;
    const where = compaction
      ? `compaction ${compaction}`
      : `${plural(corpus.compactions, 'compaction')} (${plural(corpus.messages, 'original message')}, ${plural(corpus.summaries, 'summary', 'summaries')})${past ? ', ' : ' and '}${plural(corpus.spills, 'saved output')}${past ? ` and the ${pastWords({ sessionId: past.sessionId, title: past.title })}` : ''}`;
    return {
      ...toolOk(
        `No match for "${query}" in ${where}. Try a shorter or broader term: one identifier, part of a file name or of an error message${compaction ? ', or leave out `compaction`' : ''}.`,
      ),
      compactionIds: [],
    };
  }
  const shown = hits.slice(0, RECALL_MAX_HITS);
  const ids = [...new Set(shown.flatMap((h) => (h.item.compactionId && !h.item.past ? [h.item.compactionId] : [])))];
  return { ...toolOk(formatHits(query, hits, RECALL_MAX_HITS)), compactionIds: ids };
}

function read(q: RecallInput, ctx: RecallContext, limits: ToolLimits, maxChars: number): RecallOutcome {
  let doc;
  if (q.id !== undefined) {
    doc = locateById(ctx.compactions, ctx.spills, q.id);
    if (!doc)
      return failed(
        `recall: nothing compacted or saved has the id "${q.id}". Ids come from recall search hits (id=…) and summaries (their compaction id); search first with recall query=….`,
      );
  } else {
    const found = locateTurn(ctx.compactions, q.turn ?? 0, q.compaction);
    if ('error' in found) return failed(found.error);
    doc = found;
  }
  const page = pageDocument(
    doc,
    { ...(q.offset !== undefined ? { offset: q.offset } : {}), ...(q.limit !== undefined ? { limit: q.limit } : {}) },
    limits,
    maxChars,
  );
  return { ...page, compactionIds: page.isError ? [] : doc.compactionIds };
}

/** How the agent binds recall to its session. */
export interface RecallRouting {
  /** The session's compactions as they are at the time of the call. */
  readonly compactions: () => readonly { readonly record: CompactionRecord }[];
  /** The session's saved outputs; without it they are not searched. */
  readonly spills?: SpillReader;
  /** The session this one continues (a handoff), read-only; without it only this session is searched. */
  readonly past?: PastSessionReader;
  /** Called after a recall returned content from these compactions (e.g. to count and persist it). */
  readonly onRecalled?: (toolUseId: string, compactionIds: readonly string[]) => Promise<void>;
}

/**
 * recall bound to a session (`routing`): the definition the session adds to its tools (see
 * `withSessionTools`). Its execution never throws: a failure is an error result.
 */
export function recallDefinition(routing: RecallRouting): ToolDefinition<RecallInput> {
  return bindTool(RECALL_SPEC, async (input, ctx) => {
    let spills: readonly SpilledOutput[];
    try {
      spills = (await routing.spills?.read()) ?? [];
    } catch {
      spills = [];
    }
    let past: PastSession | undefined;
    try {
      past = await routing.past?.read();
    } catch {
      past = undefined;
    }
    let r: RecallOutcome;
    try {
      r = runRecall(input, { compactions: [...routing.compactions(), ...(past ? pastSources(past) : [])], spills });
    } catch (e) {
      r = failed(`recall failed: ${e instanceof Error ? e.message : String(e)}. Try another query.`);
    }
    // A count that could not be saved must not fail the call: the content was found.
    if (!r.isError && r.compactionIds.length > 0)
      await routing.onRecalled?.(ctx.toolUseId, r.compactionIds).catch(() => undefined);
    return { content: r.text === '' ? '(no output)' : r.text, isError: r.isError };
  });
}

/** `recalled 3×`: how often the agent recalled from a compaction, for the views ('' for never). */
export function recalledLabel(count: number | undefined): string {
  return count && count > 0 ? `recalled ${formatCount(count)}×` : '';
}
