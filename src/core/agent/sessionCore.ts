import type { PastRequest } from '../cache/replyGaps';
import type { EngineSlot, EngineUse } from '../engine/engineSlot';
import type { CountTokensPort, LlmClient } from '../llm/llmClient';
import type { ToolRunner } from '../tools/toolRunner';
import { appendAssistantMessage, type AssistantContent } from '../conversation/assistant';
import type { ContextAfterTools } from './contextAfterTools';
import type { ConversationState, Injection, Message, ToolSchema } from '../conversation/conversationModel';
import { applyUserMessage, type Assembled } from '../conversation/assemble';
import type { ToolLoader } from '../tools/toolLoader';
import type { Clock, IdSource, Tokenizer } from '../platform/platformPorts';
import { errorText } from '../text/errors';
import type { TokenEstimator } from '../tokens/estimator';
import type { Compactor } from '../compaction/compactor';
import type { CompactionRecord } from '../compaction/types';
import type { PastSessionReader, SpillReader } from '../recall/corpus';
import type { SubagentLauncher } from './subagentPort';
import type { PlanChange } from '../plan/planHistory';
import type { AgentEvent, SessionSink } from './events';
import { RequestAccounting } from './requestAccounting';
import { prepareRequest, type PreparedRequest } from '../pipeline/pipeline';
import { bindThinking } from '../pipeline/thinkingBinding';
import { makeRequestCounter } from '../tokens/requestTokens';
import { STOPPED_BEFORE_ANSWER, STOPPED_SUFFIX } from '../normalize/standInAnswers';
import { SessionWriteError, sessionFileFailure } from './sessionWrite';

/** Ports and settings of an agent session. */
export interface AgentDeps {
  readonly llm: LlmClient;
  readonly tools: ToolRunner;
  readonly sink: SessionSink;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly tokenizer: Tokenizer;
  readonly estimator: TokenEstimator;
  /** Folder where oversized pastes are saved. */
  readonly pasteDirectory: string;
  /** Writes spilled pastes before the message referencing them is sent. */
  readonly writeFile: (path: string, content: string) => Promise<void>;
  /** Tool rounds allowed in one turn before the loop stops and asks the user. */
  readonly maxToolRounds: number;
  /** The compaction engine; without it the history is never compacted. */
  readonly compactor?: Compactor;
  /**
   * The workspace files of the session's rewinds (the host's checkpoints): `undo` brings the
   * files a rewind put back forward again (asking about conflicts); absent: rewinds touch no file.
   */
  readonly rewindFiles?: { undo(recordId: string): Promise<SendResult> };
  /** The session's context engine slot (engineSlot.ts); absent: the layered pipeline alone. */
  readonly engine?: EngineSlot;
  /** Context to add after each tool round (nested project instructions); its injections go with the tool results. */
  readonly contextAfterTools?: ContextAfterTools;
  /** The session's saved outputs, for the recall tool; without it they are not searched. */
  readonly spills?: SpillReader;
  /** The session this one continues (a handoff), read-only, for the recall tool; absent: none. */
  readonly pastSession?: PastSessionReader;
  /** Exact prompt size (`count_tokens`), asked beside the first request per model; without it nothing is counted. */
  readonly countTokens?: CountTokensPort;
  /**
   * Turns the tools offered into the tools each request sends (deferred loading, find_tools);
   * without it every offered tool is sent as it is.
   */
  readonly toolLoader?: ToolLoader;
  /**
   * Opens child sessions for the `task` tool (subagents); without it `task` is not bound here
   * (a call gets the built-in refusal). A subagent's own session has none: depth limit 1.
   */
  readonly subagents?: SubagentLauncher;
  /** The requests a reopened session made before, oldest first (its rhythm of replies, replyGaps.ts); absent: none. */
  readonly pastRequests?: readonly PastRequest[];
}

/** A compaction of this session and whether it is in effect (restore undoes it). */
export interface CompactionEntryState {
  readonly record: CompactionRecord;
  readonly active: boolean;
  /** Its messages were lost from the session file: kept only for its originals, never restorable. */
  readonly orphaned?: true;
  /** How many recall calls returned content from it (absent: none). */
  readonly recalled?: number;
}

/** Result of a call that starts a turn or runs a command. */
export type SendResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * The state of one agent session and its only writer, shared by its turn loop
 * (agentTurnLoop.ts) and its commands (sessionCommands.ts, planCommands.ts, rewindCommands.ts):
 * they read it through getters and change it through the methods here, each named for what
 * the caller means (a run begins or ends, a saved message is appended, a rewind or restore is
 * applied, the plan changes...), with the steps they share: adopting a compaction pass (saved
 * first) and appending an assistant message. Not used on its own: AgentSession is the facade.
 */
export class SessionCore {
  private stateValue: ConversationState;
  private offeredValue: readonly ToolSchema[];
  /** The turn or manual compaction running, with its controller (Stop aborts it). */
  private run: { readonly controller: AbortController; readonly kind: 'turn' | 'compaction' } | undefined;
  private planClearedUnsaidValue = false;
  private readonly planChangesValue: PlanChange[];
  private compactionsValue: CompactionEntryState[];
  readonly accounting: RequestAccounting;

  constructor(
    initial: ConversationState,
    readonly deps: AgentDeps,
    readonly emit: (event: AgentEvent) => void,
    compactions: readonly CompactionEntryState[],
    planChanges: readonly PlanChange[] = [],
  ) {
    this.planChangesValue = [...planChanges];
    this.offeredValue = initial.tools;
    const tools = deps.toolLoader?.tools(initial.tools) ?? initial.tools;
    this.stateValue = tools === initial.tools ? initial : { ...initial, tools };
    this.compactionsValue = [...compactions];
    this.accounting = new RequestAccounting(deps, emit);
  }

  /** The conversation as it stands (its `tools` as the next request sends them). */
  get state(): ConversationState {
    return this.stateValue;
  }

  /** The tools offered (built-ins, MCP servers'), before the tool loading plan. */
  get offered(): readonly ToolSchema[] {
    return this.offeredValue;
  }

  /** Whether a turn or a manual compaction runs (from `beginRun` to its `endRun`). */
  get running(): boolean {
    return this.run !== undefined;
  }

  /** Whether the run is a manual compaction. */
  get compacting(): boolean {
    return this.run?.kind === 'compaction';
  }

  /** The user cleared the plan and Claude has not been told yet (planCommands.ts). */
  get planClearedUnsaid(): boolean {
    return this.planClearedUnsaidValue;
  }

  /** Every change of the plan, oldest first (planHistory.ts): a rewind puts the plan back by it. */
  get planChanges(): readonly PlanChange[] {
    return this.planChangesValue;
  }

  /** Every compaction of the session, oldest first, with whether it is in effect. */
  get compactions(): readonly CompactionEntryState[] {
    return this.compactionsValue;
  }

  /**
   * Makes the turn or manual compaction (`kind`) under `controller` the one running: the
   * session is busy, and `stop` aborts it, until `endRun(controller)`.
   */
  beginRun(controller: AbortController, kind: 'turn' | 'compaction' = 'turn'): void {
    this.run = { controller, kind };
  }

  /** Ends the run under `controller`; a run begun since (another controller) goes on. Idempotent. */
  endRun(controller: AbortController): void {
    if (this.run?.controller === controller) this.run = undefined;
  }

  /** Aborts the running turn or manual compaction, if any (it ends itself, with `endRun`). */
  stop(): void {
    this.run?.controller.abort();
  }

  /**
   * Takes the tools offered (between turns), or, with no argument, plans again what the next
   * request sends (each round: `find_tools` may have loaded tools). Keeps the same array
   * while nothing changed.
   */
  planTools(offered: readonly ToolSchema[] = this.offeredValue): void {
    this.offeredValue = offered;
    const tools = this.deps.toolLoader?.tools(offered) ?? offered;
    if (tools !== this.stateValue.tools) this.stateValue = { ...this.stateValue, tools };
  }

  /** Replaces settings-derived parts (config, system, tools offered) between turns; the tools go through the loading plan. */
  updateSettings(patch: Partial<Pick<ConversationState, 'config' | 'system' | 'tools'>>): void {
    const { tools, ...rest } = patch;
    this.stateValue = { ...this.stateValue, ...rest };
    // The tools offered go through the tool loading plan (deferred MCP tools, find_tools).
    if (tools) this.planTools(tools);
    else if (rest.config) this.planTools();
  }

  /** Queues editor context for the next user message (replacing what was queued). */
  setPending(pending: readonly Injection[]): void {
    this.stateValue = { ...this.stateValue, pending };
  }

  /**
   * Appends a user message the sink has saved (the user's words or a round's tool results) to
   * `base` (default: the state now; the loop passes the state it assembled on, with the context
   * added after tools), which becomes the state; the pending context went with it.
   */
  appendSavedUser(assembled: Assembled, base: ConversationState = this.stateValue): void {
    this.stateValue = applyUserMessage(base, assembled);
  }

  /**
   * Makes `state` the conversation, with the compaction list unchanged: a pin change (saved
   * first), or a refused message putting back the state it started from.
   */
  replaceState(state: ConversationState): void {
    this.stateValue = state;
  }

  /** A rewind (Retry or Edit) the sink has saved: `messages` are the conversation now, `record` (in effect) holds what left. */
  applyRewind(record: CompactionRecord, messages: readonly Message[]): void {
    this.stateValue = { ...this.stateValue, messages };
    this.compactionsValue.push({ record, active: true });
  }

  /**
   * A restore of compaction `recordId` the sink has saved: `state` is the conversation now, the
   * compaction is no longer in effect, and `displaced` (a rewind of the answer that took the
   * restored turn's place), when given, is a new compaction in effect.
   */
  applyRestore(recordId: string, state: ConversationState, displaced?: CompactionRecord): void {
    this.stateValue = state;
    this.compactionsValue = this.compactionsValue.map((c) => (c.record.id === recordId ? { ...c, active: false } : c));
    if (displaced) this.compactionsValue.push({ record: displaced, active: true });
  }

  /** Counts one recall (saved) that returned content from each of `compactionIds`. */
  countRecall(compactionIds: readonly string[]): void {
    this.compactionsValue = this.compactionsValue.map((c) =>
      compactionIds.includes(c.record.id) ? { ...c, recalled: (c.recalled ?? 0) + 1 } : c,
    );
  }

  /**
   * A change of the plan the sink has saved: `change.plan` (absent: none) becomes the state's
   * plan and `change` joins the plan history. A new plan is what Claude follows now: a Clear
   * before it needs no more telling.
   */
  recordPlanChange(change: PlanChange): void {
    const { plan: _old, ...rest } = this.stateValue;
    this.stateValue = change.plan ? { ...rest, plan: change.plan } : rest;
    this.planChangesValue.push(change);
    if (change.plan) this.planClearedUnsaidValue = false;
  }

  /** The user cleared the plan: Claude is to be told with the user's next message. */
  markPlanClearUnsaid(): void {
    this.planClearedUnsaidValue = true;
  }

  /** The user's message that tells Claude of a Clear (when there was one to tell) is in the conversation. */
  markPlanClearSaid(): void {
    this.planClearedUnsaidValue = false;
  }

  /**
   * The request the turn loop would send for `state` now: prepareRequest with the session's
   * token counter, its previous cache breakpoint and its rhythm of replies (cache lifetimes). The one place that builds it, so the
   * main-model summary (the compactor's `mainRequest`) reuses the agent's exact prefix and
   * breakpoints. Pure with respect to the session (nothing is recorded).
   */
  prepare(state: ConversationState): PreparedRequest {
    const previous = this.accounting.previousBreakpoint;
    return prepareRequest(state, {
      count: makeRequestCounter(this.deps.estimator, this.deps.tokenizer),
      clock: this.deps.clock,
      gaps: this.accounting.gapStats,
      ...(this.deps.compactor ? { missRate: this.deps.compactor.measured.cacheMissRate } : {}),
      ...(previous ? { previous } : {}),
    });
  }

  /**
   * The request the next send would make for `state`, by the path a send takes: the chosen
   * context engine's messages (engineSlot.ts; the layered engine's are the state's own), then
   * {@link prepare}. Quiet: no notice, nothing recorded (the request preview and the budget use it).
   */
  async previewRequest(
    state: ConversationState,
    signal: AbortSignal,
  ): Promise<{ readonly prepared: PreparedRequest; readonly engine?: EngineUse }> {
    const step = this.deps.engine ? await this.deps.engine.assemble(state, { signal, quiet: true }) : undefined;
    const sent = step?.kind === 'engine' ? step.state : state;
    return { prepared: this.prepare(sent), ...(step ? { engine: step.use } : {}) };
  }

  /**
   * Takes a compaction pass's result, saving first: each record goes to the sink, and only
   * when all are saved do the state and the compaction list change and the views hear of it.
   * A failed save leaves memory as it was (records already saved are undone in the file with
   * restore entries, so a reload matches), emits an `error` and a `compaction_finished`
   * without records (so progress ends), and returns the reason.
   */
  async adopt(
    state: ConversationState,
    records: readonly CompactionRecord[],
    notices: readonly string[],
  ): Promise<SendResult> {
    const saved: CompactionRecord[] = [];
    try {
      for (const record of records) {
        await this.deps.sink.compaction(record);
        saved.push(record);
      }
    } catch (err) {
      const undo = await this.unsave(saved);
      return this.compactionFailed(
        `The compaction could not be saved, so it was not applied: ${errorText(err)}${undo}`,
      );
    }
    this.stateValue = state;
    for (const record of records) {
      this.compactionsValue.push({ record, active: true });
      this.accounting.compacted(record);
    }
    // The views re-render the replaced history first, so the notices that explain it stay visible.
    if (records.length > 0) this.emit({ type: 'history_replaced', messages: state.messages });
    for (const text of notices) this.emit({ type: 'notice', level: 'warning', text });
    this.emit({ type: 'compaction_finished', records, notices });
    if (records.length > 0) this.emit({ type: 'health', health: this.accounting.health });
    return { ok: true };
  }

  /** Reports a compaction that did not happen: an `error`, then an empty `compaction_finished`; returns the reason. */
  compactionFailed(reason: string): SendResult {
    this.emit({ type: 'error', error: { kind: 'unknown', retryable: false, message: reason } });
    this.emit({ type: 'compaction_finished', records: [], notices: [] });
    return { ok: false, reason };
  }

  /** Undoes in the file, newest first, records saved before a later save failed; '' or a sentence saying what could not be undone. */
  private async unsave(saved: readonly CompactionRecord[]): Promise<string> {
    for (const record of [...saved].reverse()) {
      try {
        await this.deps.sink.restore(record.id);
      } catch (err) {
        return ` (compaction ${record.id} stays in the session file until it is reopened: ${errorText(err)})`;
      }
    }
    return '';
  }

  /**
   * Saves an assistant message, then appends it and tells the views; undefined (after an error
   * event) when it cannot be recorded — a failed save (kind `session_file`) leaves memory as
   * the file has it, the user's message unanswered, so Retry asks again. `prefix` (the
   * request's `requestPrefixDigest`) binds the answer's thinking to the context it was
   * produced after (thinkingBinding.ts). `what`: the message, in the error's words.
   */
  async appendAssistant(
    content: readonly AssistantContent[],
    prefix?: string,
    what = "Claude's answer",
  ): Promise<Message | undefined> {
    const appended = appendAssistantMessage(this.stateValue, content, this.deps);
    if (!appended.ok) {
      this.emit({
        type: 'error',
        error: { kind: 'unknown', retryable: false, message: `Could not record the answer: ${appended.error}` },
      });
      return undefined;
    }
    const message = prefix === undefined ? appended.message : bindThinking(appended.message, prefix);
    try {
      await this.deps.sink.message(message);
    } catch (err) {
      const lost = `${what} was not kept: it is not in the conversation, and your message waits for an answer`;
      const text = sessionFileFailure(err, lost, 'Retry to ask again');
      this.emit({ type: 'error', error: new SessionWriteError(text, true).error });
      return undefined;
    }
    this.stateValue =
      message === appended.message
        ? appended.state
        : { ...appended.state, messages: [...appended.state.messages.slice(0, -1), message] };
    this.emit({ type: 'message_added', message });
    return message;
  }

  /** A stop while streaming keeps what was said, marked as stopped, so history stays consistent. */
  async recordStop(streamedText: string): Promise<void> {
    const text = streamedText.trim() ? `${streamedText}\n\n${STOPPED_SUFFIX}` : STOPPED_BEFORE_ANSWER;
    await this.appendAssistant([{ type: 'text', text }], undefined, 'the note that the turn was stopped');
  }
}
