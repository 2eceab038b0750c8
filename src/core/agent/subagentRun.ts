/**
 * Runs one subagent: opens its child session, sends the task as the child's one turn, follows
 * its events into figures (shown live), and turns how the turn ended into the parent's tool
 * result — the child's final report, or an error saying why there is none. Never throws and
 * never hangs: the child's turn always ends (a Stop of the parent stops it), and the child is
 * closed whatever happened. Pure but for the port.
 */
import type { AgentEvent, TurnEndReason } from './events';
import { summariesCost } from '../compaction/health';
import { addCosts } from '../llm/cost';
import type { Message } from '../conversation/conversationModel';
import type { Clock } from '../platform/platformPorts';
import { errorText } from '../text/errors';
import { headChars } from '../platform/text';
import type { ToolExecution } from '../tools/toolDefinition';
import type { SubagentLauncher, SubagentTask } from './subagentPort';
import { startedFigures, withRequest, type SubagentFigures, type SubagentRecord } from '../subagents/subagentRecord';

/** Characters of a failed subagent's last words quoted in its error result. */
export const LAST_WORDS_CHARS = 2_000;

/** A subagent's outcome: the parent's tool result, and its record when a child session was opened. */
export interface SubagentOutcome {
  readonly execution: ToolExecution;
  readonly record?: SubagentRecord;
}

/**
 * Runs `task` in a child session from `launcher`. `progress` hears the figures after each
 * change (the card); `signal` is the parent's call's (a Stop stops the child).
 */
export async function runSubagent(
  launcher: SubagentLauncher,
  task: SubagentTask,
  signal: AbortSignal,
  progress: (figures: SubagentFigures) => void,
  clock: Clock,
): Promise<SubagentOutcome> {
  if (signal.aborted) return { execution: failed('Cancelled: the user stopped the turn before the subagent started.') };
  let figures: SubagentFigures | undefined;
  let reason: TurnEndReason | undefined;
  let lastError: string | undefined;
  const onEvent = (e: AgentEvent) => {
    if (!figures) return;
    const next = follow(figures, e, launcher);
    if (e.type === 'error') lastError = e.error.message;
    if (e.type === 'turn_finished') reason = e.reason;
    if (next !== figures) {
      figures = next;
      progress(figures);
    }
  };
  let opened: Awaited<ReturnType<SubagentLauncher['open']>>;
  try {
    opened = await launcher.open(task, onEvent);
  } catch (err) {
    opened = { ok: false, error: errorText(err) };
  }
  if (!opened.ok) return { execution: failed(`The subagent could not start: ${opened.error}`) };
  const child = opened.child;
  figures = startedFigures(child.sessionId, task.description, child.model);
  progress(figures);
  const stop = () => child.stop();
  signal.addEventListener('abort', stop, { once: true });
  let sent: Awaited<ReturnType<typeof child.send>>;
  try {
    sent = signal.aborted ? { ok: false, reason: 'stopped' } : await child.send(task.prompt);
  } catch (err) {
    sent = { ok: false, reason: errorText(err) };
  } finally {
    signal.removeEventListener('abort', stop);
  }
  const ended = endOf(sent, reason, signal.aborted, lastError, child.messages(), launcher.settings().maxRounds);
  const notKept = await child.close().catch((err: unknown) => errorText(err));
  const record: SubagentRecord = { ...figures, state: ended.state, toolUseId: task.toolUseId, at: clock.now() };
  progress(record);
  const execution = notKept
    ? { ...ended.execution, content: `${String(ended.execution.content)}\n\n[${notKept}]` }
    : ended.execution;
  return { execution, record };
}

/**
 * The figures after one of the child's events (the same object when nothing changed): its
 * rounds, tool calls, requests and their usage and cost, its compactions — and what its
 * summaries cost, made or cut short, billed to the parent with its requests.
 */
export function follow(f: SubagentFigures, e: AgentEvent, launcher: SubagentLauncher): SubagentFigures {
  switch (e.type) {
    case 'request_started':
      return e.round > f.rounds ? { ...f, rounds: e.round } : f;
    case 'tool_started':
      return { ...f, toolCalls: f.toolCalls + 1, lastTool: launcher.describe(e.call) };
    case 'usage':
      return withRequest({ ...f, model: e.model || f.model }, e.usage, e.costUsd);
    // Its summaries, made or stopped, were spent on its behalf: billed to the parent with its requests.
    case 'compaction_finished':
      return e.records.length > 0
        ? {
            ...f,
            compactions: f.compactions + e.records.length,
            costUsd: addCosts(f.costUsd, summariesCost(e.records)),
          }
        : f;
    case 'summary_spend':
      return { ...f, costUsd: addCosts(f.costUsd, e.costUsd) };
    default:
      return f;
  }
}

/** The parent's result and the subagent's end state for how its turn ended. */
function endOf(
  sent: { readonly ok: true } | { readonly ok: false; readonly reason: string },
  reason: TurnEndReason | undefined,
  stopped: boolean,
  lastError: string | undefined,
  messages: readonly Message[],
  maxRounds: number,
): { execution: ToolExecution; state: SubagentRecord['state'] } {
  const words = lastWords(messages);
  if (stopped || reason === 'stopped')
    return { state: 'stopped', execution: failed('Cancelled: the user stopped the turn while the subagent ran.') };
  if (!sent.ok) return { state: 'failed', execution: failed(`The subagent could not start its task: ${sent.reason}`) };
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return words
        ? { state: 'done', execution: { content: words, isError: false } }
        : { state: 'failed', execution: failed('The subagent ended without a report (its last answer had no text).') };
    case 'max_tokens':
      return words
        ? {
            state: 'done',
            execution: { content: `${words}\n\n[The subagent's report was cut at its output limit.]`, isError: false },
          }
        : { state: 'failed', execution: failed('The subagent reached its output limit before it wrote a report.') };
    case 'tool_limit':
      return {
        state: 'failed',
        execution: failed(
          `The subagent stopped after ${maxRounds} tool rounds (contextPipeline.subagents.maxRounds) without finishing its task. Narrow the task, or do it yourself.${quoted(words)}`,
        ),
      };
    case 'error':
      return {
        state: 'failed',
        execution: failed(`The subagent failed: ${lastError ?? 'its turn ended with an error.'}${quoted(words)}`),
      };
    case 'refusal':
      return { state: 'failed', execution: failed(`The subagent declined the task.${quoted(words)}`) };
    default:
      return {
        state: 'failed',
        execution: failed(`The subagent's turn ended unexpectedly (${reason ?? 'no end reported'}).${quoted(words)}`),
      };
  }
}

/** The text of the child's last answer ('' when it has none). */
function lastWords(messages: readonly Message[]): string {
  const last = [...messages].reverse().find((m) => m.role === 'assistant');
  if (!last) return '';
  return last.blocks
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join('\n\n')
    .trim();
}

function quoted(words: string): string {
  if (!words) return '';
  const head = headChars(words, LAST_WORDS_CHARS);
  return ` Its last words:\n${head}${head.length < words.length ? ' …' : ''}`;
}

function failed(text: string): ToolExecution {
  return { content: text, isError: true };
}
