import type { CountTokensPort, LlmClient, LlmResult, ToolCall, ToolRunner } from './agentPorts';
import { applyUserMessage, assembleUserMessage } from '../conversation/assemble';
import { appendAssistantMessage, type AssistantContent } from '../conversation/assistant';
import type { ConversationState, Injection, Message } from '../conversation/conversationModel';
import { pinBlock, pinMessage, type PinChange } from '../conversation/pins';
import { prepareRequest } from '../pipeline/pipeline';
import type { Clock, IdSource, Tokenizer } from '../platform/platformPorts';
import { makeRequestCounter } from '../pipeline/requestTokens';
import type { TokenEstimator } from '../tokens/estimator';
import { priorFactorFor } from '../tokens/calibration';
import { modelInfo } from '../models/modelFacts';
import { restoreRecord } from '../compaction/apply';
import type { Compactor } from '../compaction/compactor';
import type { ContextHealth } from '../compaction/health';
import { effectiveWindow } from '../compaction/policy';
import type { CompactionRecord } from '../compaction/types';
import type { SpillReader } from '../recall/corpus';
import { withRecall } from '../recall/recallTool';
import { requestCostUsd } from './cost';
import { serverRequestFor } from './serverRequest';
import { SERVER_RESTORE_REFUSAL, serverCompactionRecord } from '../compaction/serverCompaction';
import { turnEndReason, type AgentEvent, type SessionSink, type TurnEndReason } from './events';
import { newRecoveryBudget, recoverOverflow } from './overflowRecovery';
import { runToolRound } from './toolRound';
import { addContextAfterTools, type ContextAfterTools } from './contextAfterTools';
import { RequestAccounting } from './requestAccounting';

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
  /** Context to add after each tool round (nested project instructions); its injections go with the tool results. */
  readonly contextAfterTools?: ContextAfterTools;
  /** The session's saved outputs, for the recall tool; without it they are not searched. */
  readonly spills?: SpillReader;
  /** Exact prompt size (`count_tokens`), asked beside the first request per model; without it nothing is counted. */
  readonly countTokens?: CountTokensPort;
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

/** Result of a call that starts a turn. */
export type SendResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * One conversation with Claude and the turn loop that drives it: assemble → (guard, later:
 * compact) → cache anchors → serialize → stream → run tools → next request … until the model
 * ends its turn, hits max_tokens or refuses, the user stops, or an error remains after retries.
 * Every completed message goes to the session sink before the next step, so a crash loses at
 * most the message being streamed. One turn at a time; events describe everything.
 */
export class AgentSession {
  private stateValue: ConversationState;
  private running: AbortController | undefined;
  private compacting = false;
  private queued: { instructions?: string; done: (r: SendResult) => void } | undefined;
  private compactionList: CompactionEntryState[];
  /** The workspace tools, with `recall` answered here on this session's compactions. */
  private readonly tools: ToolRunner;
  private readonly accounting: RequestAccounting;

  constructor(
    initial: ConversationState,
    private readonly deps: AgentDeps,
    private readonly emit: (event: AgentEvent) => void,
    compactions: readonly CompactionEntryState[] = [],
  ) {
    this.stateValue = initial;
    this.compactionList = [...compactions];
    this.accounting = new RequestAccounting(deps, emit);
    this.tools = withRecall(deps.tools, {
      compactions: () => this.compactionList,
      ...(deps.spills ? { spills: deps.spills } : {}),
      onRecalled: (call, ids) => this.noteRecall(call.id, ids),
    });
  }

  /** Counts a recall from `compactionIds`, persists it, then tells the views. */
  private async noteRecall(toolUseId: string, compactionIds: readonly string[]): Promise<void> {
    this.compactionList = this.compactionList.map((c) =>
      compactionIds.includes(c.record.id) ? { ...c, recalled: (c.recalled ?? 0) + 1 } : c,
    );
    await this.deps.sink.recall?.({ at: this.deps.clock.now(), toolUseId, compactionIds });
    this.emit({ type: 'recalled', toolUseId, compactionIds });
  }

  /** Every compaction of the session, oldest first, with whether it is in effect. */
  get compactions(): readonly CompactionEntryState[] {
    return this.compactionList;
  }

  /** Context health figures of this session. */
  get health(): ContextHealth {
    return this.accounting.health;
  }

  /** Whether a manual compaction waits for the running turn. */
  get compactionQueued(): boolean {
    return this.queued !== undefined;
  }

  /**
   * Compacts now with the configured strategy (optional instructions for the summariser).
   * While a turn runs the request waits for the turn boundary (cancellable); one compaction
   * runs at a time. Resolves when it ran (or was cancelled).
   */
  compactNow(instructions?: string): Promise<SendResult> {
    if (!this.deps.compactor) return Promise.resolve({ ok: false, reason: 'Compaction is not available.' });
    if (this.compacting) return Promise.resolve({ ok: false, reason: 'A compaction is already running.' });
    if (this.running) {
      this.queued?.done({ ok: false, reason: 'Replaced by a newer compaction request.' });
      return new Promise((done) => {
        this.queued = { ...(instructions ? { instructions } : {}), done };
        this.emit({ type: 'compaction_queued' });
      });
    }
    return this.runManualCompaction(instructions);
  }

  /** Pins (never compacted) or unpins every block of a message — the chat's Pin toggle — and persists it. */
  setPinned(messageId: string, pinned: boolean): Promise<SendResult> {
    return this.applyPins((st) => pinMessage(st, messageId, pinned), pinned);
  }

  /** Pins or unpins one block (e.g. a Pin Selection block), persisted the same way. */
  setBlockPinned(blockId: string, pinned: boolean): Promise<SendResult> {
    return this.applyPins((st) => pinBlock(st, blockId, pinned), pinned);
  }

  /**
   * Saves the pin change first, then applies it to the state as it is then (a turn may have
   * started meanwhile); a failed save changes nothing and says why.
   */
  private async applyPins(change: (state: ConversationState) => PinChange, pinned: boolean): Promise<SendResult> {
    if (this.running || this.compacting)
      return { ok: false, reason: 'Wait for the running turn or compaction to finish.' };
    const planned = change(this.stateValue);
    if (!planned.ok) return planned;
    try {
      await this.deps.sink.pins(planned.blockIds, pinned);
    } catch (err) {
      return {
        ok: false,
        reason: `The ${pinned ? 'pin' : 'unpin'} could not be saved: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
    const applied = change(this.stateValue);
    if (applied.ok) this.stateValue = applied.state;
    this.accounting.noteEdit(pinned ? 'a pin' : 'an unpin');
    this.emit({ type: 'history_replaced', messages: this.stateValue.messages });
    return { ok: true };
  }

  /** Drops a queued manual compaction. */
  cancelQueuedCompaction(): boolean {
    const q = this.queued;
    if (!q) return false;
    this.queued = undefined;
    q.done({ ok: false, reason: 'Cancelled.' });
    return true;
  }

  /**
   * Undoes a compaction: its originals go back in place of its replacement. Refused, with the
   * reason, while a turn runs, when a later compaction swallowed it, or when the restored
   * history would not fit the window.
   */
  async restore(recordId: string): Promise<SendResult> {
    if (this.running || this.compacting)
      return { ok: false, reason: 'Wait for the running turn or compaction to finish.' };
    const index = this.compactionList.findIndex((c) => c.record.id === recordId);
    const entry = this.compactionList[index];
    if (!entry) return { ok: false, reason: 'No such compaction in this session.' };
    if (entry.orphaned)
      return {
        ok: false,
        reason:
          'This compaction cannot be restored: the messages it replaced were lost from the session file, so there is nothing to put its originals back in place of. Its original messages can still be opened in the Compactions view.',
      };
    if (!entry.active) return { ok: false, reason: 'This compaction was already restored.' };
    if (entry.record.layer === 'server-compact') return { ok: false, reason: SERVER_RESTORE_REFUSAL };
    const restored = restoreRecord(this.stateValue, entry.record);
    if (!restored.ok) return { ok: false, reason: restored.reason };
    const compactor = this.deps.compactor;
    if (compactor) {
      const tokens = this.deps.estimator.estimate(restored.state).tokens;
      const eff = effectiveWindow(restored.state.config);
      if (tokens > eff)
        return {
          ok: false,
          reason: `Restoring would make the prompt about ${tokens.toLocaleString('en-US')} tokens, more than the ${eff.toLocaleString('en-US')} the window leaves for it. Compact something else first.`,
        };
    }
    this.stateValue = restored.state;
    this.compactionList[index] = { ...entry, active: false };
    this.accounting.noteEdit(`the restore of compaction ${recordId}`);
    await this.deps.sink.restore(recordId);
    this.emit({ type: 'restored', recordId });
    this.emit({ type: 'history_replaced', messages: this.stateValue.messages });
    return { ok: true };
  }

  private async runManualCompaction(instructions?: string): Promise<SendResult> {
    const compactor = this.deps.compactor;
    if (!compactor) return { ok: false, reason: 'Compaction is not available.' };
    this.compacting = true;
    const controller = new AbortController();
    this.running = controller;
    try {
      this.emit({ type: 'compaction_started', trigger: 'manual' });
      compactor.breaker.reset();
      const run = await compactor.compact(this.stateValue, {
        trigger: 'manual',
        tokensToFree: 'all',
        ...(instructions ? { instructions } : {}),
        signal: controller.signal,
      });
      await this.adopt(run.state, run.records, run.notices);
      return run.records.length > 0
        ? { ok: true }
        : { ok: false, reason: run.notices.join(' ') || 'Nothing was compacted.' };
    } finally {
      this.compacting = false;
      this.running = undefined;
    }
  }

  /** Takes a compaction pass's result: persists its records, then tells the views. */
  private async adopt(
    state: ConversationState,
    records: readonly CompactionRecord[],
    notices: readonly string[],
  ): Promise<void> {
    this.stateValue = state;
    for (const record of records) {
      this.compactionList.push({ record, active: true });
      this.accounting.compacted(record);
      await this.deps.sink.compaction(record);
    }
    // The views re-render the replaced history first, so the notices that explain it stay visible.
    if (records.length > 0) this.emit({ type: 'history_replaced', messages: state.messages });
    for (const text of notices) this.emit({ type: 'notice', level: 'warning', text });
    this.emit({ type: 'compaction_finished', records, notices });
    if (records.length > 0) this.emit({ type: 'health', health: this.accounting.health });
  }

  /** The conversation as it stands. */
  get state(): ConversationState {
    return this.stateValue;
  }

  /** Whether a turn is running. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Replaces settings-derived parts (config, system, tools) between turns. */
  update(patch: Partial<Pick<ConversationState, 'config' | 'system' | 'tools'>>): void {
    this.stateValue = { ...this.stateValue, ...patch };
  }

  /** Queues editor context for the next user message (replacing what was queued). */
  setPending(pending: readonly Injection[]): void {
    this.stateValue = { ...this.stateValue, pending };
  }

  /** Stops the running turn (streaming or tools) within a second; history stays consistent. */
  stop(): void {
    this.running?.abort();
  }

  /**
   * Sends the user's words as a new turn. If the previous request failed and left the user's
   * last message unanswered, a short assistant note records that first, so roles alternate
   * and nothing the user wrote is dropped.
   */
  async send(userText: string): Promise<SendResult> {
    if (this.running) return { ok: false, reason: 'A turn is still running; stop it or wait for it to finish.' };
    const before = this.stateValue;
    if (before.messages.at(-1)?.role === 'user') {
      const note = await this.appendAssistant([
        { type: 'text', text: '[No answer: the previous request failed or was stopped before Claude replied.]' },
      ]);
      if (!note) return { ok: false, reason: 'Could not record the failed request.' };
    }
    const assembled = assembleUserMessage(
      this.stateValue,
      { userText, pasteDirectory: this.deps.pasteDirectory },
      this.deps,
    );
    if (!assembled.ok) {
      this.stateValue = before;
      return { ok: false, reason: assembled.error.message };
    }
    for (const spill of assembled.value.spills) await this.deps.writeFile(spill.path, spill.content);
    this.stateValue = applyUserMessage(this.stateValue, assembled.value);
    await this.deps.sink.message(assembled.value.message);
    for (const d of assembled.value.dropped)
      this.emit({ type: 'notice', level: 'warning', text: `Left out of your message: ${d.reason}.` });
    this.emit({ type: 'turn_started', turn: assembled.value.message.turn });
    this.emit({ type: 'message_added', message: assembled.value.message, injected: assembled.value.injected });
    await this.loop();
    return { ok: true };
  }

  /** Re-sends the last request after a failure (the user's message is already in history). */
  async retry(): Promise<SendResult> {
    if (this.running) return { ok: false, reason: 'A turn is still running.' };
    const last = this.stateValue.messages.at(-1);
    if (last?.role !== 'user') return { ok: false, reason: 'There is no unanswered message to retry.' };
    this.emit({ type: 'turn_started', turn: last.turn });
    await this.loop();
    return { ok: true };
  }

  private async loop(): Promise<void> {
    const controller = new AbortController();
    this.running = controller;
    let reason: TurnEndReason = 'end_turn';
    let stopReason: string | null | undefined;
    try {
      const recovery = newRecoveryBudget();
      for (let round = 1; ; round++) {
        if (round > this.deps.maxToolRounds) {
          reason = 'tool_limit';
          this.emit({
            type: 'notice',
            level: 'warning',
            text: `Stopped after ${this.deps.maxToolRounds} tool rounds in one turn (contextPipeline.maxToolRounds). Send a message to let Claude continue.`,
          });
          break;
        }
        const compactor = this.deps.compactor;
        if (compactor) {
          const run = await compactor.beforeRequest(this.stateValue, {
            ...(this.accounting.lastRequestAt !== undefined ? { lastRequestAt: this.accounting.lastRequestAt } : {}),
            signal: controller.signal,
          });
          if (run.records.length > 0 || run.notices.length > 0) await this.adopt(run.state, run.records, run.notices);
          if (controller.signal.aborted) {
            reason = 'stopped';
            if (this.stateValue.messages.at(-1)?.role === 'user') await this.recordStop('');
            break;
          }
        }
        const sent = this.stateValue;
        // A model switch restarts the estimator's calibration from that model's tokenizer prior.
        this.deps.estimator.useModel(sent.config.model, priorFactorFor(modelInfo(sent.config.model).tokenizer));
        const prepared = prepareRequest(sent, {
          count: makeRequestCounter(this.deps.estimator, this.deps.tokenizer),
          clock: this.deps.clock,
          ...(this.accounting.previousBreakpoint ? { previous: this.accounting.previousBreakpoint } : {}),
        });
        let streamedText = '';
        const server = serverRequestFor(sent, this.deps.compactor?.settings());
        if (!server.ok) {
          this.emit({
            type: 'error',
            error: {
              kind: 'invalid_request',
              retryable: false,
              message: `${server.reason} Choose another contextPipeline.compactionStrategy or model; your message is kept.`,
            },
          });
          reason = 'error';
          break;
        }
        // Beside the stream, never before it: the first request per model gets an exact count.
        const params = this.accounting.beforeSend(sent, prepared, controller.signal);
        const answer = await this.deps.llm.stream(params, {
          signal: controller.signal,
          ...(server.value ? { server: server.value } : {}),
          onEvent: (e) => {
            if (e.type === 'request_started') {
              streamedText = '';
              this.emit({
                type: 'request_started',
                round,
                attempt: e.attempt,
                estimatedTokens: prepared.tokens.total,
                anchored: prepared.tokens.anchored,
                ...(prepared.repairs.length > 0 ? { repairs: prepared.repairs } : {}),
              });
            } else if (e.type === 'text_delta') {
              streamedText += e.text;
              this.emit({ type: 'text_delta', text: e.text });
            } else if (e.type === 'thinking_delta') this.emit({ type: 'thinking_delta', text: e.thinking });
            else if (e.type === 'tool_use_started') this.emit({ type: 'tool_use_started', id: e.id, name: e.name });
            else if (e.type === 'retrying')
              this.emit({ type: 'retrying', attempt: e.attempt, waitMs: e.waitMs, error: e.error });
          },
        });
        if (!answer.ok) {
          if (answer.error.kind === 'aborted' || controller.signal.aborted) {
            await this.recordStop(streamedText);
            reason = 'stopped';
            break;
          }
          if (answer.error.kind === 'prompt_too_long' || answer.error.kind === 'context_exceeded') {
            const step = await recoverOverflow(
              this.stateValue,
              answer.error,
              recovery,
              this.deps.compactor,
              controller.signal,
            );
            if (step) {
              await this.adopt(step.state, step.records, step.notices);
              round--;
              continue;
            }
            this.emit({
              type: 'error',
              error: {
                ...answer.error,
                message: `${answer.error.message} Nothing more can be cut automatically: start a new session, or remove large pasted or pinned content.`,
              },
            });
            reason = 'error';
            break;
          }
          this.emit({ type: 'error', error: answer.error });
          reason = 'error';
          break;
        }
        const result = answer.result;
        await this.accounting.answered(sent, prepared, result);
        stopReason = result.stopReason;
        const content =
          result.content.length > 0
            ? result.content
            : [{ type: 'text' as const, text: '[Claude returned an empty answer.]' }];
        const message = await this.appendAssistant(content);
        if (!message) {
          reason = 'error';
          break;
        }
        await this.adoptServerCompaction(message, result, sent.config.cacheTtl);
        const calls: ToolCall[] = message.blocks.flatMap((b) =>
          b.type === 'tool_use' ? [{ id: b.id, name: b.name, input: b.input }] : [],
        );
        if (calls.length === 0) {
          reason = turnEndReason(result.stopReason);
          if (reason === 'max_tokens')
            this.emit({
              type: 'notice',
              level: 'warning',
              text: 'The answer reached the output limit (max_tokens) and was cut. Ask Claude to continue.',
            });
          if (reason === 'refusal')
            this.emit({ type: 'notice', level: 'warning', text: 'Claude declined to answer this request.' });
          if (reason === 'other')
            this.emit({
              type: 'notice',
              level: 'info',
              text: `The turn ended with stop reason "${String(result.stopReason)}".`,
            });
          break;
        }
        const results = await runToolRound(calls, controller.signal, {
          tools: this.tools,
          ...(this.deps.compactor ? { compactor: this.deps.compactor } : {}),
          writeFile: this.deps.writeFile,
          spillDirectory: this.deps.pasteDirectory,
          contextWindow: this.stateValue.config.contextWindow,
          emit: this.emit,
        });
        this.stateValue = await addContextAfterTools(
          this.stateValue,
          this.deps.contextAfterTools,
          calls,
          results,
          (text) => this.emit({ type: 'notice', level: 'warning', text }),
        );
        const assembled = assembleUserMessage(
          this.stateValue,
          { toolResults: results, pasteDirectory: this.deps.pasteDirectory },
          this.deps,
        );
        if (!assembled.ok) {
          this.emit({
            type: 'error',
            error: {
              kind: 'unknown',
              retryable: false,
              message: `Internal error while returning tool results: ${assembled.error.message}`,
            },
          });
          reason = 'error';
          break;
        }
        this.stateValue = applyUserMessage(this.stateValue, assembled.value);
        await this.deps.sink.message(assembled.value.message);
        this.emit({ type: 'message_added', message: assembled.value.message, injected: assembled.value.injected });
        if (controller.signal.aborted) {
          // The cancelled results are in history; end with a short note so the next user message alternates.
          await this.appendAssistant([{ type: 'text', text: '[Stopped by the user while tools were running.]' }]);
          reason = 'stopped';
          break;
        }
      }
    } finally {
      this.running = undefined;
      this.emit({ type: 'turn_finished', reason, ...(stopReason !== undefined ? { stopReason } : {}) });
      const queued = this.queued;
      this.queued = undefined;
      if (queued) void this.runManualCompaction(queued.instructions).then(queued.done);
    }
  }

  /**
   * When the answer carries a server compaction block: the messages the API now ignores
   * become a record (shown in the Compactions view with the summary), persisted like ours.
   */
  private async adoptServerCompaction(
    message: Message,
    result: LlmResult,
    ttl: ConversationState['config']['cacheTtl'],
  ): Promise<void> {
    const compactionUsage = (result.server?.iterations ?? []).filter((i) => i.type === 'compaction');
    const costUsd = compactionUsage.reduce(
      (n, u) => n + (requestCostUsd(result.model || this.stateValue.config.model, u, ttl) ?? 0),
      0,
    );
    const compactor = this.deps.compactor;
    const r = serverCompactionRecord(this.stateValue, message, {
      clock: this.deps.clock,
      ids: this.deps.ids,
      tokensOf: (m) => compactor?.tokensOf(m) ?? 0,
      costUsd,
      model: result.model,
      strategy: this.deps.compactor?.settings().strategy ?? 'server-compact',
    });
    if (!r) return;
    this.emit({ type: 'compaction_started', trigger: 'auto-soft' });
    await this.adopt(r.state, [r.record], []);
  }

  private async appendAssistant(content: readonly AssistantContent[]) {
    const appended = appendAssistantMessage(this.stateValue, content, this.deps);
    if (!appended.ok) {
      this.emit({
        type: 'error',
        error: { kind: 'unknown', retryable: false, message: `Could not record the answer: ${appended.error}` },
      });
      return undefined;
    }
    this.stateValue = appended.state;
    await this.deps.sink.message(appended.message);
    this.emit({ type: 'message_added', message: appended.message });
    return appended.message;
  }

  /** A stop while streaming keeps what was said, marked as stopped, so history stays consistent. */
  private async recordStop(streamedText: string): Promise<void> {
    const text = streamedText.trim()
      ? `${streamedText}\n\n[Stopped by the user.]`
      : '[Stopped by the user before Claude answered.]';
    await this.appendAssistant([{ type: 'text', text }]);
  }
}
