import type { LlmClient, LlmError, ToolCall, ToolRunner } from '../agentPorts';
import { applyUserMessage, assembleUserMessage, type ToolResultInput } from '../assemble';
import { appendAssistantMessage, type AssistantContent } from '../assistant';
import type { PreviousBreakpoint } from '../cacheAnchors';
import type { ConversationState, Injection } from '../model';
import { prepareRequest } from '../pipeline';
import type { Clock, IdSource, Tokenizer } from '../ports';
import { makeRequestCounter } from '../requestTokens';
import type { TokenEstimator } from '../tokens/estimator';
import { promptTokensOf, requestCostUsd } from './cost';
import type { AgentEvent, SessionSink, TurnEndReason } from './events';
import { cutOversizedToolResults } from './overflow';

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
  private previous: PreviousBreakpoint | undefined;
  private running: AbortController | undefined;

  constructor(initial: ConversationState, private readonly deps: AgentDeps, private readonly emit: (event: AgentEvent) => void) {
    this.stateValue = initial;
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
      const note = await this.appendAssistant([{ type: 'text', text: '[No answer: the previous request failed or was stopped before Claude replied.]' }]);
      if (!note) return { ok: false, reason: 'Could not record the failed request.' };
    }
    const assembled = assembleUserMessage(this.stateValue, { userText, pasteDirectory: this.deps.pasteDirectory }, this.deps);
    if (!assembled.ok) {
      this.stateValue = before;
      return { ok: false, reason: assembled.error.message };
    }
    for (const spill of assembled.value.spills) await this.deps.writeFile(spill.path, spill.content);
    this.stateValue = applyUserMessage(this.stateValue, assembled.value);
    await this.deps.sink.message(assembled.value.message);
    for (const d of assembled.value.dropped) this.emit({ type: 'notice', level: 'warning', text: `Left out of your message: ${d.reason}.` });
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
      // At most 3 overflow recoveries per turn, each of which must shrink something: no loop.
      const recovered = { attempts: 0 };
      for (let round = 1; ; round++) {
        if (round > this.deps.maxToolRounds) {
          reason = 'tool_limit';
          this.emit({ type: 'notice', level: 'warning', text: `Stopped after ${this.deps.maxToolRounds} tool rounds in one turn (contextPipeline.maxToolRounds). Send a message to let Claude continue.` });
          break;
        }
        const sent = this.stateValue;
        const prepared = prepareRequest(sent, { count: makeRequestCounter(this.deps.estimator, this.deps.tokenizer), clock: this.deps.clock, ...(this.previous ? { previous: this.previous } : {}) });
        let streamedText = '';
        const answer = await this.deps.llm.stream(prepared.params, {
          signal: controller.signal,
          onEvent: (e) => {
            if (e.type === 'request_started') {
              streamedText = '';
              this.emit({ type: 'request_started', round, attempt: e.attempt, estimatedTokens: prepared.tokens.total, anchored: prepared.tokens.anchored });
            } else if (e.type === 'text_delta') {
              streamedText += e.text;
              this.emit({ type: 'text_delta', text: e.text });
            } else if (e.type === 'tool_use_started') this.emit({ type: 'tool_use_started', id: e.id, name: e.name });
            else if (e.type === 'retrying') this.emit({ type: 'retrying', attempt: e.attempt, waitMs: e.waitMs, error: e.error });
          },
        });
        if (!answer.ok) {
          if (answer.error.kind === 'aborted' || controller.signal.aborted) {
            await this.recordStop(streamedText);
            reason = 'stopped';
            break;
          }
          if ((answer.error.kind === 'prompt_too_long' || answer.error.kind === 'context_exceeded') && this.recoverOverflow(answer.error, recovered)) {
            round--;
            continue;
          }
          if (answer.error.kind === 'prompt_too_long' || answer.error.kind === 'context_exceeded') {
            this.emit({ type: 'error', error: { ...answer.error, message: `${answer.error.message} Nothing more can be cut automatically: start a new session, or remove large pasted or pinned content.` } });
            reason = 'error';
            break;
          }
          this.emit({ type: 'error', error: answer.error });
          reason = 'error';
          break;
        }
        const result = answer.result;
        this.previous = prepared.lastBreakpoint;
        this.deps.estimator.observe(sent, result.usage);
        const costUsd = requestCostUsd(result.model || sent.config.model, result.usage, sent.config.cacheTtl);
        const usageRecord = { usage: result.usage, model: result.model, costUsd, estimatedTokens: prepared.tokens.total, at: this.deps.clock.now(), ...(result.requestId ? { requestId: result.requestId } : {}) };
        await this.deps.sink.usage(usageRecord);
        this.emit({ type: 'usage', ...usageRecord, reportedTokens: promptTokensOf(result.usage) });
        stopReason = result.stopReason;
        const content = result.content.length > 0 ? result.content : [{ type: 'text' as const, text: '[Claude returned an empty answer.]' }];
        const message = await this.appendAssistant(content);
        if (!message) {
          reason = 'error';
          break;
        }
        const calls: ToolCall[] = message.blocks.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, input: b.input }] : []));
        if (calls.length === 0) {
          reason = endReason(result.stopReason);
          if (reason === 'max_tokens') this.emit({ type: 'notice', level: 'warning', text: 'The answer reached the output limit (max_tokens) and was cut. Ask Claude to continue.' });
          if (reason === 'refusal') this.emit({ type: 'notice', level: 'warning', text: 'Claude declined to answer this request.' });
          if (reason === 'other') this.emit({ type: 'notice', level: 'info', text: `The turn ended with stop reason "${String(result.stopReason)}".` });
          break;
        }
        const results = await this.runTools(calls, controller.signal);
        const assembled = assembleUserMessage(this.stateValue, { toolResults: results, pasteDirectory: this.deps.pasteDirectory }, this.deps);
        if (!assembled.ok) {
          this.emit({ type: 'error', error: { kind: 'unknown', retryable: false, message: `Internal error while returning tool results: ${assembled.error.message}` } });
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
    }
  }

  /** Runs the calls one by one; after a stop, the rest are answered as cancelled. */
  private async runTools(calls: readonly ToolCall[], signal: AbortSignal): Promise<ToolResultInput[]> {
    const results: ToolResultInput[] = [];
    for (const call of calls) {
      if (signal.aborted) {
        results.push({ toolUseId: call.id, content: 'Cancelled: the user stopped the turn before this tool ran.', isError: true });
        continue;
      }
      this.emit({ type: 'tool_started', call });
      const outcome = await this.deps.tools.run(call, signal);
      // A tool that finished despite the stop keeps its real result; one cut short says so.
      const cancelled = signal.aborted && outcome.isError;
      const partial = typeof outcome.content === 'string' && outcome.content ? `\n${outcome.content}` : '';
      const final = cancelled ? { ...outcome, content: `Cancelled: the user stopped the turn while this tool was running.${partial}` } : outcome;
      this.emit({ type: 'tool_finished', call, outcome: final });
      results.push({ toolUseId: call.id, content: final.content, isError: final.isError });
    }
    return results;
  }

  private async appendAssistant(content: readonly AssistantContent[]) {
    const appended = appendAssistantMessage(this.stateValue, content, this.deps);
    if (!appended.ok) {
      this.emit({ type: 'error', error: { kind: 'unknown', retryable: false, message: `Could not record the answer: ${appended.error}` } });
      return undefined;
    }
    this.stateValue = appended.state;
    await this.deps.sink.message(appended.message);
    this.emit({ type: 'message_added', message: appended.message });
    return appended.message;
  }

  /** A stop while streaming keeps what was said, marked as stopped, so history stays consistent. */
  private async recordStop(streamedText: string): Promise<void> {
    const text = streamedText.trim() ? `${streamedText}\n\n[Stopped by the user.]` : '[Stopped by the user before Claude answered.]';
    await this.appendAssistant([{ type: 'text', text }]);
  }

  /**
   * The API said the prompt does not fit. context_exceeded: shrink max_tokens to what is left
   * when that still leaves a useful answer. Otherwise cut oversized tool results. Each attempt
   * must shrink the reserve or the content, and a turn gets at most 3: no loop. Returns whether
   * a retry is worth it. (Compaction-based recovery comes with the compactor.)
   */
  private recoverOverflow(error: LlmError, recovered: { attempts: number }): boolean {
    if (recovered.attempts >= MAX_OVERFLOW_RECOVERIES) return false;
    recovered.attempts++;
    const cfg = this.stateValue.config;
    const limit = error.limitTokens ?? cfg.contextWindow;
    if (error.kind === 'context_exceeded' && error.promptTokens !== undefined) {
      const room = limit - error.promptTokens;
      if (room >= 1024 && room - 256 < cfg.outputReserve) {
        this.stateValue = { ...this.stateValue, config: { ...cfg, outputReserve: room - 256 } };
        this.emit({ type: 'notice', level: 'warning', text: `The answer's token reserve was lowered to ${room - 256} so the request fits the ${limit}-token window.` });
        return true;
      }
    }
    // Tokens to shed so the prompt plus the answer's reserve fit; ~4 characters a token, with margin.
    const over = Math.max(0, (error.promptTokens ?? 0) - (limit - cfg.outputReserve));
    const cut = cutOversizedToolResults(this.stateValue, Math.max(2_000, Math.floor(20_000 / recovered.attempts)), Math.max(over * 4 * 1.3, 20_000));
    if (cut.cutBlocks === 0) return false;
    this.stateValue = cut.state;
    this.emit({ type: 'notice', level: 'warning', text: `The conversation did not fit the context window; ${cut.cutBlocks} large tool result(s) were cut (${cut.charsRemoved.toLocaleString('en-US')} characters) and the request was sent again.` });
    return true;
  }
}

/** Most overflow recoveries (reserve lowered, results cut) tried within one turn. */
const MAX_OVERFLOW_RECOVERIES = 3;

function endReason(stop: string | null): TurnEndReason {
  switch (stop) {
    case 'end_turn':
    case null:
      return 'end_turn';
    case 'max_tokens':
    case 'refusal':
    case 'stop_sequence':
      return stop;
    case 'tool_use':
      return 'end_turn';
    default:
      return 'other';
  }
}
