import type { EngineSlot, EngineUse } from '../engine/engineSlot';
import type { PreparedRequest } from '../pipeline/pipeline';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { ToolRunner } from '../tools/toolRunner';
import { assembleUserMessage, type ToolResultInput, type TurnInput } from '../conversation/assemble';
import type { ConversationState, Injection, Plan } from '../conversation/conversationModel';
import type { StoppedSpend } from '../compaction/stoppedSpend';
import type { ContextHealth } from '../compaction/health';
import type { PreviousBreakpoint } from '../cache/cacheAnchors';
import { recallDefinition } from '../recall/recallTool';
import { planDefinition } from '../plan/planTool';
import type { PlanChange } from '../plan/planHistory';
import { clearPlan, planClearedInjections, setPlan } from './planCommands';
import { RECALL_MAX_CHARS } from '../recall/recallSpec';
import { sessionTaskTool } from './subagentRouting';
import { TASK_REPORT_MAX_CHARS } from '../subagents/taskSpec';
import { withSessionTools } from '../tools/toolRegistry';
import type { ToolLoadingPlan } from '../tools/toolLoading';
import type { AgentEvent } from './events';
import { runTurnLoop } from './agentTurnLoop';
import { SessionCommands, type UserCommands } from './sessionCommands';
import { SessionCore, type AgentDeps, type CompactionEntryState, type SendResult } from './sessionCore';
import { INTERRUPTED_CALL, NO_ANSWER } from '../normalize/standInAnswers';
import { restoreRewind, rewindLast } from './rewindCommands';
import { sessionFileFailure, sessionFolderFailure } from './sessionWrite';

/** What a message refused for a failed write leaves. */
const NOT_SENT = 'your message was not sent (nothing of it was kept)';

export type { AgentDeps, CompactionEntryState, SendResult } from './sessionCore';

/**
 * One conversation with Claude: the facade over its turn loop (agentTurnLoop.ts) and, as
 * `commands`, its commands (sessionCommands.ts: Compact Now, pins, restore), which share one
 * SessionCore (the owner of the session's state).
 * One turn at a time; events describe everything; every completed message goes to the
 * session sink before the next step.
 */
export class AgentSession {
  private readonly core: SessionCore;
  private readonly commandsValue: SessionCommands;
  /** The workspace tools, with `recall` (on this session's compactions), `update_plan` and `task` answered here. */
  private readonly tools: ToolRunner;

  constructor(
    initial: ConversationState,
    private readonly deps: AgentDeps,
    private readonly emit: (event: AgentEvent) => void,
    compactions: readonly CompactionEntryState[] = [],
    planChanges: readonly PlanChange[] = [],
  ) {
    this.core = new SessionCore(initial, deps, emit, compactions, planChanges);
    this.commandsValue = new SessionCommands(this.core);
    const recall = recallDefinition({
      // What a Retry or Edit took back is the user's to restore, not the model's to read.
      compactions: () => this.core.compactions.filter((c) => c.record.layer !== 'rewind'),
      ...(deps.spills ? { spills: deps.spills } : {}),
      ...(deps.pastSession ? { past: deps.pastSession } : {}),
      onRecalled: (toolUseId, ids) => this.commandsValue.noteRecall(toolUseId, ids),
    });
    const plan = planDefinition({ adopt: (p, toolUseId) => setPlan(this.core, p, toolUseId) });
    const own = deps.toolLoader ? [recall, plan, deps.toolLoader.findTools] : [recall, plan];
    const now = () => deps.clock.now();
    const tools = withSessionTools(deps.tools, own, now, RECALL_MAX_CHARS);
    // A subagent's report has its own cap; the tool-result guard spills a long one to a file.
    this.tools = deps.subagents
      ? withSessionTools(tools, [sessionTaskTool(this.core, deps.subagents)], now, TASK_REPORT_MAX_CHARS)
      : tools;
  }

  /**
   * The session's commands outside its turns (Compact Now and its queue, pins, restore): the one
   * way to them. Turns (send, retry, Retry and Edit of the last message, stop) are the session's.
   */
  get commands(): UserCommands {
    return this.commandsValue;
  }

  /** Every compaction of the session, oldest first, with whether it is in effect. */
  get compactions(): readonly CompactionEntryState[] {
    return this.core.compactions;
  }

  /**
   * The request the next turn would send for `state` (the agent's counter and previous cache
   * breakpoint): the prefix a main-model summary must repeat to read the prompt cache.
   */
  mainRequest(state: ConversationState): {
    readonly params: MessageCreateParamsNonStreaming;
    readonly sent: ConversationState;
  } {
    const prepared = this.core.prepare(state);
    return { params: prepared.params, sent: prepared.sent };
  }

  /**
   * A summary of this session stopped before it was made had spent `spend` (its compactor
   * reports it, maybe after the run ended): saved and billed (RequestAccounting.stoppedSummary).
   */
  stoppedSummary(spend: StoppedSpend): Promise<void> {
    return this.core.accounting.stoppedSummary(spend);
  }

  /** Context health figures of this session. */
  get health(): ContextHealth {
    return this.core.accounting.health;
  }

  /** The agent's plan (update_plan), undefined when there is none. */
  get plan(): Plan | undefined {
    return this.core.state.plan;
  }

  /** The user clears the plan (saved first; allowed while a turn runs). */
  clearPlan(): Promise<SendResult> {
    return clearPlan(this.core);
  }

  /** The conversation as it stands. */
  get state(): ConversationState {
    return this.core.state;
  }

  /** Where the last answered request put its last cache breakpoint (a preview plans its anchors with it). */
  /** The session's context engine slot (engineSlot.ts), when it has one. */
  get engine(): EngineSlot | undefined {
    return this.core.deps.engine;
  }

  /** The requests actually sent, the one before the last and the last (requestAccounting.ts `sentRequests`). */
  get sentRequests(): readonly PreparedRequest[] {
    return this.core.accounting.sentRequests;
  }

  /** The request a send would make for `state` now, by the send's own path (SessionCore.previewRequest). */
  previewRequest(
    state: ConversationState,
    signal: AbortSignal = new AbortController().signal,
  ): Promise<{ readonly prepared: PreparedRequest; readonly engine?: EngineUse }> {
    return this.core.previewRequest(state, signal);
  }

  /** The request the next send would make for `state` with the layered engine: prepare with the session's memory. */
  prepareNext(state: ConversationState): PreparedRequest {
    return this.core.prepare(state);
  }

  get previousBreakpoint(): PreviousBreakpoint | undefined {
    return this.core.accounting.previousBreakpoint;
  }

  /** Whether a turn is running. */
  get busy(): boolean {
    return this.core.running;
  }

  /** Replaces settings-derived parts (config, system, tools) between turns. */
  update(patch: Partial<Pick<ConversationState, 'config' | 'system' | 'tools'>>): void {
    this.core.updateSettings(patch);
  }

  /** The tool loading plan of the tools offered now (what is deferred, the figures); undefined without a loader. */
  toolPlan(): ToolLoadingPlan | undefined {
    return this.deps.toolLoader?.plan(this.core.offered);
  }

  /** Queues editor context for the next user message (replacing what was queued). */
  setPending(pending: readonly Injection[]): void {
    this.core.setPending(pending);
  }

  /** Stops the running turn (streaming or tools) within a second; history stays consistent. */
  stop(): void {
    this.core.stop();
  }

  /**
   * Sends the user's words (with the images pasted beside them) as a new turn. If the
   * previous request failed and left the user's last message unanswered, a short assistant
   * note records that first, so roles alternate and nothing the user wrote is dropped. Tool
   * calls the history left without results (the session was closed, or the round failed,
   * while they ran: the file ends with the calls) are answered as interrupted, before the words.
   * The message is saved before it enters the conversation: a failed write refuses it with the
   * reason, and nothing is sent.
   */
  async send(userText: string, images: TurnInput['images'] = []): Promise<SendResult> {
    const core = this.core;
    if (core.running) return { ok: false, reason: 'A turn is still running; stop it or wait for it to finish.' };
    // Running from here on, while the message is saved: a Stop stops the turn, a Compact Now waits for it.
    return this.turn(new AbortController(), async (controller) => {
      const before = core.state;
      if (before.messages.at(-1)?.role === 'user') {
        const note = await core.appendAssistant([{ type: 'text', text: NO_ANSWER }]);
        if (!note) return { ok: false, reason: 'Could not record the failed request.' };
      }
      const cleared = planClearedInjections(core);
      const withReminder =
        cleared.length > 0 ? { ...core.state, pending: [...core.state.pending, ...cleared] } : core.state;
      const assembled = assembleUserMessage(
        withReminder,
        { userText, images, pasteDirectory: this.deps.pasteDirectory, toolResults: interruptedCalls(core.state) },
        this.deps,
      );
      if (!assembled.ok) {
        core.replaceState(before);
        return { ok: false, reason: assembled.error.message };
      }
      // Saved before memory changes: a failed write refuses the message (the composer takes it back).
      try {
        for (const spill of assembled.value.spills) await this.deps.writeFile(spill.path, spill.content);
      } catch (err) {
        return { ok: false, reason: sessionFolderFailure(err, 'Your pasted text', NOT_SENT, 'send it again') };
      }
      try {
        await this.deps.sink.message(assembled.value.message);
      } catch (err) {
        return { ok: false, reason: sessionFileFailure(err, NOT_SENT, 'send it again') };
      }
      core.appendSavedUser(assembled.value);
      core.markPlanClearSaid();
      for (const d of assembled.value.dropped)
        this.emit({ type: 'notice', level: 'warning', text: `Left out of your message: ${d.reason}.` });
      this.emit({ type: 'turn_started', turn: assembled.value.message.turn });
      this.emit({ type: 'message_added', message: assembled.value.message, injected: assembled.value.injected });
      await runTurnLoop(core, this.tools, controller);
      return { ok: true };
    });
  }

  /** Re-sends the last request after a failure (the user's message is already in history). */
  async retry(): Promise<SendResult> {
    if (this.core.running) return { ok: false, reason: 'A turn is still running.' };
    const last = this.core.state.messages.at(-1);
    if (last?.role !== 'user') return { ok: false, reason: 'There is no unanswered message to retry.' };
    return this.turn(new AbortController(), async (controller) => {
      this.emit({ type: 'turn_started', turn: last.turn });
      await runTurnLoop(this.core, this.tools, controller);
      return { ok: true };
    });
  }

  /**
   * Retry on the last answer: the answers after the user's last message (`messageId`) leave the
   * conversation as a rewind record (kept, restorable; rewind.ts), and that message is answered
   * again. Refused, with the reason, while a turn runs, when `messageId` is not the user's last
   * message, when that turn was compacted, or when nothing answers it yet.
   */
  async retryLast(messageId: string): Promise<SendResult> {
    const rewound = await rewindLast(this.core, 'retry', messageId);
    return rewound.ok ? this.retry() : rewound;
  }

  /**
   * Edit-and-resend of the user's last message (`messageId`): it and its answers leave as a
   * rewind record, and `userText` (with `images`) is sent in its place. When the new message
   * is refused before it enters the conversation, the rewind is undone (nothing is lost).
   * Refused for the reasons of retryLast (but an unanswered message may be edited).
   */
  async editLast(messageId: string, userText: string, images: TurnInput['images'] = []): Promise<SendResult> {
    const rewound = await rewindLast(this.core, 'edit', messageId);
    if (!rewound.ok) return rewound;
    const record = this.core.compactions.at(-1)?.record;
    const sent = await this.send(userText, images);
    if (!sent.ok && record?.layer === 'rewind') await restoreRewind(this.core, record);
    return sent;
  }

  /**
   * Runs `body` as the session's running turn under `controller` (busy, stoppable, Compact Now
   * queued behind it) from its first step, then runs the compaction queued behind it (if any),
   * however `body` ended.
   */
  private async turn(
    controller: AbortController,
    body: (controller: AbortController) => Promise<SendResult>,
  ): Promise<SendResult> {
    this.core.beginRun(controller);
    try {
      return await body(controller);
    } finally {
      this.core.endRun(controller);
      this.commandsValue.runQueued();
    }
  }
}

/** An interrupted result for each tool call of the last message, when it is the assistant's (none otherwise). */
function interruptedCalls(state: ConversationState): ToolResultInput[] {
  const last = state.messages.at(-1);
  if (last?.role !== 'assistant') return [];
  return last.blocks.flatMap((b) =>
    b.type === 'tool_use' ? [{ toolUseId: b.id, content: INTERRUPTED_CALL, isError: true }] : [],
  );
}
