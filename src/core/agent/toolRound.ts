import type { ToolCall, ToolRunner } from './agentPorts';
import type { ToolResultInput } from '../conversation/assemble';
import type { Compactor } from '../compaction/compactor';
import { neutralizeToolResult } from '../conversation/injections';
import { roundResultText } from '../compaction/roundGuard';
import type { AgentEvent } from './events';
import { resultsNotKept, saveOrStop, sessionFolderFailure } from './sessionWrite';

/** What a tool round needs. */
export interface ToolRoundDeps {
  readonly tools: ToolRunner;
  readonly compactor?: Compactor;
  readonly writeFile: (path: string, content: string) => Promise<void>;
  /** Where oversized results are saved (the session's folder, readable with read_file). */
  readonly spillDirectory: string;
  readonly contextWindow: number;
  readonly emit: (event: AgentEvent) => void;
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
 * Runs the calls one by one. After a stop, the calls not yet run are answered as cancelled,
 * and a call cut short says so; a call that finished despite the stop keeps its real result.
 * Each result passes the tool-result guard (layer 1) before it enters the history: over
 * 30 KB it is saved to a file and replaced by a preview and the path, still too long it is cut.
 * Then our tags in it (`<system-reminder>`, `<ide_selection>`, …, lookalikes too) are
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
  for (const call of calls) {
    if (signal.aborted) {
      results.push({
        toolUseId: call.id,
        content: 'Cancelled: the user stopped the turn before this tool ran.',
        isError: true,
      });
      continue;
    }
    deps.emit({ type: 'tool_started', call });
    const outcome = await deps.tools.run(call, signal, (state) => deps.emit({ type: 'tool_state', call, state }));
    const cancelled = signal.aborted && outcome.isError;
    const partial = typeof outcome.content === 'string' && outcome.content ? `\n${outcome.content}` : '';
    let final = cancelled
      ? { ...outcome, content: `Cancelled: the user stopped the turn while this tool was running.${partial}` }
      : outcome;
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
    if (final.content !== raw) {
      const text = roundResultText(raw);
      if (text !== undefined) originals.set(call.id, text);
    }
    deps.emit({ type: 'tool_finished', call, outcome: final });
    results.push({ toolUseId: call.id, content: final.content, isError: final.isError });
  }
  return { results, originals };
}
