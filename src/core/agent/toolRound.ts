import type { ToolCall, ToolRunner } from '../tools/toolRunner';
import type { ToolResultInput } from '../conversation/assemble';
import type { Compactor } from '../compaction/compactor';
import { neutralizeToolResult } from '../conversation/injections';
import { roundResultText } from '../compaction/roundGuard';
import type { AgentEvent } from './events';
import { resultsNotKept, saveOrStop, sessionFolderFailure } from './sessionWrite';
import { CANCELLED_BEFORE_RUN, CANCELLED_WHILE_RUNNING } from '../normalize/standInAnswers';

/** What a tool round needs. */
export interface ToolRoundDeps {
  readonly tools: ToolRunner;
  readonly compactor?: Compactor;
  readonly writeFile: (path: string, content: string) => Promise<void>;
  /** Where oversized results are saved (the session's folder, readable with read_file). */
  readonly spillDirectory: string;
  readonly contextWindow: number;
  readonly emit: (event: AgentEvent) => void;
  /**
   * Tools whose consecutive calls in a round run together (`task`), and how many at a time;
   * absent: every call runs alone, in order.
   */
  readonly parallel?: { readonly names: ReadonlySet<string>; readonly limit: number };
}

/** A round's results, and what neutralisation changed. */
export interface ToolRoundResults {
  /** One per call, in order, as the model will see them. */
  readonly results: ToolResultInput[];
  /**
   * By tool call id, a result's text before our tags in it were neutralised (after the
   * per-result guard), only where neutralising changed it: what the tool really returned, for
   * a file the round guard saves it to.
   */
  readonly originals: ReadonlyMap<string, string>;
}

/**
 * Runs the calls one by one, but for a batch of consecutive calls to a parallel tool (`task`:
 * subagents), which run together, at most `parallel.limit` at a time (the others wait for a
 * free slot); results keep the calls' order. After a stop, the calls not yet run are answered
 * as cancelled, and a call cut short says so; a call that finished despite the stop keeps its
 * real result. Each result passes the tool-result guard (layer 1) before it enters the history:
 * over 30 KB it is saved to a file and replaced by a preview and the path, still too long it
 * is cut. Then our tags in it (`<system-reminder>`, `<ide_selection>`, …, lookalikes too) are
 * neutralised, as in any untrusted content; the spilled file keeps the original, and so does
 * one the round guard writes later (from `originals`). A spill that cannot be written throws
 * a SessionWriteError (sessionWrite.ts): the round stops there, and so does the turn.
 */
export async function runToolRound(
  calls: readonly ToolCall[],
  signal: AbortSignal,
  deps: ToolRoundDeps,
): Promise<ToolRoundResults> {
  const results: ToolResultInput[] = [];
  const originals = new Map<string, string>();
  const isParallel = (c: ToolCall | undefined) => c !== undefined && deps.parallel?.names.has(c.name) === true;
  for (let i = 0; i < calls.length;) {
    let end = i + 1;
    if (isParallel(calls[i])) while (isParallel(calls[end])) end++;
    const batch = calls.slice(i, end);
    const ran = await inSlots(batch, Math.max(1, deps.parallel?.limit ?? 1), (call) => runCall(call, signal, deps));
    for (const r of ran) {
      results.push(r.result);
      if (r.original !== undefined) originals.set(r.result.toolUseId, r.original);
    }
    i = end;
  }
  return { results, originals };
}

/** One call run, guarded and neutralised: its result, and its text before neutralising when that changed it. */
async function runCall(
  call: ToolCall,
  signal: AbortSignal,
  deps: ToolRoundDeps,
): Promise<{ result: ToolResultInput; original?: string }> {
  if (signal.aborted)
    return {
      result: {
        toolUseId: call.id,
        content: CANCELLED_BEFORE_RUN,
        isError: true,
      },
    };
  deps.emit({ type: 'tool_started', call });
  const outcome = await deps.tools.run(call, signal, (state) => deps.emit({ type: 'tool_state', call, state }));
  const cancelled = signal.aborted && outcome.isError;
  const partial = typeof outcome.content === 'string' && outcome.content ? `\n${outcome.content}` : '';
  let final = cancelled ? { ...outcome, content: `${CANCELLED_WHILE_RUNNING}${partial}` } : outcome;
  if (deps.compactor && typeof final.content === 'string') {
    const guarded = deps.compactor.guardResult(final.content, {
      contextWindow: deps.contextWindow,
      spillDirectory: deps.spillDirectory,
      fileName: `tool-${call.id}.txt`,
      toolName: call.name,
    });
    const spill = guarded.spill;
    if (spill)
      await saveOrStop(
        () => deps.writeFile(spill.path, spill.content),
        (err) =>
          sessionFolderFailure(
            err,
            `The output of ${call.name}`,
            resultsNotKept("the round's results"),
            'send a message',
          ),
      );
    final = { ...final, content: guarded.content };
  }
  // Untrusted content: it may not open, close or fake one of our tags (lookalikes included).
  const raw = final.content;
  final = { ...final, content: neutralizeToolResult(raw) };
  const original = final.content !== raw ? roundResultText(raw) : undefined;
  deps.emit({ type: 'tool_finished', call, outcome: final });
  return {
    result: { toolUseId: call.id, content: final.content, isError: final.isError },
    ...(original !== undefined ? { original } : {}),
  };
}

/**
 * `run` on each item, at most `slots` at a time, in order of start; the results in the items'
 * order. A rejection is rethrown once every started run has settled (none is left running).
 */
async function inSlots<T, R>(items: readonly T[], slots: number, run: (item: T) => Promise<R>): Promise<R[]> {
  if (items.length === 1) return [await run(items[0] as T)];
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const at = next++;
      try {
        out[at] = await run(items[at] as T);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(slots, items.length) }, worker));
  if (failure) throw failure.error;
  return out;
}
