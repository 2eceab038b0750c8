/**
 * Continue in a New Session, from the chat's side (the command, the chat's action, `/handoff`,
 * the offer's button): the summariser writes the handoff note of the open session
 * (core/handoff), a new session is created that names the old one (its header's
 * `continuedFrom`) and starts with the old one's plan, the chat switches to it, and its first
 * turn sends the note. The old session stays on disk, readable and resumable; `recall` in the
 * new one searches it. Busy from the start until the first turn runs; Stop while the note is
 * being written stops the handoff (nothing is created). Also the offer: after a compaction
 * pass, a notice with the button when core/handoff/handoffOffer.ts says so, once per session.
 */
import type { AgentEvent } from '../core/agent/events';
import { handoffText } from '../core/handoff/handoffContent';
import { handoffReason, offerText } from '../core/handoff/handoffOffer';
import { writeHandoff } from '../core/handoff/writeHandoff';
import type { ContinuedFrom } from '../core/session/entries';
import { sessionDisplayTitle } from '../core/session/markdown';
import { errorDetail, errorText } from '../core/text/errors';
import type { ChatNotices } from './chatNotices';
import type { LogPort, SessionRuntime, SettingsPort } from './ports';
import type { Opened, SessionLifecycle } from './sessionLifecycle';
import type { SessionPort } from './sessionPort';
import type { TurnRunner } from './turnRunner';

/** What the handoff needs from the chat service. */
export interface HandoffDeps {
  readonly sessions: Pick<SessionPort, 'create'>;
  readonly lifecycle: Pick<SessionLifecycle, 'ensure' | 'fresh' | 'current'>;
  readonly settings: Pick<SettingsPort, 'pipelineConfig'>;
  readonly notices: ChatNotices;
  readonly turns: Pick<TurnRunner, 'run' | 'busy'>;
  readonly log: LogPort;
  /** Posts the whole chat of the session switched to. */
  readonly postAll: () => Promise<void>;
  /** Posts the header status (busy while the note is written). */
  readonly postStatus: () => Promise<void>;
  /** The summariser's safety timeout (the host's abortable timer); without it only Stop ends a request. */
  readonly timeout?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** The chat's handoff; see the file comment. */
export class Handoff {
  /** The note being written (Stop aborts it). */
  private writing: AbortController | undefined;
  /** Sessions the handoff was offered in (once per session). */
  private readonly offered = new Set<string>();

  constructor(private readonly deps: HandoffDeps) {}

  /** Whether a handoff runs (its note being written, or the new session being opened). */
  get busy(): boolean {
    return this.writing !== undefined;
  }

  /** Stops the note being written (the handoff then does nothing); whether one was. */
  stop(): boolean {
    if (!this.writing) return false;
    this.writing.abort();
    return true;
  }

  /**
   * Hands the open session off to a new one (see the file comment); `instructions`: what the user
   * said with it (`/handoff focus on the tests`), for the summariser and the note. Every refusal
   * and failure is said in the chat; never throws.
   */
  async run(instructions?: string): Promise<void> {
    const { notices } = this.deps;
    if (this.writing) return notices.notice('h', 'info', 'A handoff is already being written.');
    if (this.deps.turns.busy)
      return notices.notice(
        'h',
        'warning',
        'Stop the running turn (or wait for it) before continuing in a new session.',
      );
    const controller = new AbortController();
    this.writing = controller;
    let started: { readonly turn: Promise<void> } | undefined;
    try {
      started = await this.handOff(controller, instructions);
    } catch (err) {
      this.deps.log.error(`The handoff failed: ${errorDetail(err)}`);
      notices.error(`The handoff failed: ${errorText(err)}. See the "Context Pipeline" output for details.`);
    } finally {
      // Busy until the first turn took over (its run is busy from its start).
      this.writing = undefined;
      await this.deps.postStatus();
    }
    await started?.turn;
  }

  /** Writes the note, switches to the new session and starts its first turn (`turn` resolves when it ends). */
  private async handOff(
    controller: AbortController,
    instructions?: string,
  ): Promise<{ readonly turn: Promise<void> } | undefined> {
    const { notices } = this.deps;
    const o = await this.deps.lifecycle.ensure();
    const resolved = this.deps.settings.pipelineConfig();
    if (!o || !resolved.ok) {
      notices.error(`No session could be handed off: ${resolved.ok ? 'no session is open' : resolved.error}`);
      return undefined;
    }
    const { agent } = o.runtime;
    if (agent.state.messages.length === 0) {
      notices.notice('h', 'info', 'Nothing to hand off yet: this session has no messages.');
      return undefined;
    }
    const title = sessionDisplayTitle(o.open.title, agent.state.messages) || 'New session';
    const from: ContinuedFrom = { sessionId: o.open.id, title };
    const model = resolved.config.summarizerModel;
    notices.notice('h', 'info', `Writing the handoff note with ${model}… (Stop cancels it.)`);
    await this.deps.postStatus();
    const written = await writeHandoff(
      {
        sessionId: from.sessionId,
        title: from.title,
        messages: agent.state.messages,
        compactions: agent.compactions,
        ...(agent.plan ? { plan: agent.plan } : {}),
      },
      {
        llm: o.runtime.transport.llm,
        model,
        ...(instructions?.trim() ? { instructions } : {}),
        signal: controller.signal,
        timeout: this.deps.timeout ?? (() => new Promise<void>(() => undefined)),
        // A note stopped half-way is billed to this session, with its summaries.
        onStoppedSpend: (spend) => void agent.stoppedSummary(spend),
      },
    );
    if (!written.ok) {
      notices.notice('h', 'info', 'Handoff stopped: nothing was handed off.');
      return undefined;
    }
    if (this.deps.lifecycle.current !== o) {
      notices.notice('h', 'warning', 'The session changed while the handoff note was written: nothing was handed off.');
      return undefined;
    }
    const { content } = written;
    this.deps.log.info(
      `Handoff of ${from.sessionId}: ${'model' in content.writer ? `written by ${content.writer.model}` : `built without the summariser (${content.writer.failed})`}, ${content.costUnknown ? 'cost unknown (the model has no known price)' : `$${content.costUsd.toFixed(4)}`}.`,
    );
    const plan = agent.plan;
    // The note's cost is the new session's: it is what starting it cost (its bill counts it).
    const continuedFrom: ContinuedFrom = {
      ...from,
      ...(content.costUsd > 0 ? { noteCostUsd: content.costUsd } : {}),
      ...(content.costUnknown ? { noteCostUnknown: true } : {}),
    };
    const switched = await this.deps.lifecycle.fresh((m) =>
      this.deps.sessions.create(m, { continuedFrom, ...(plan ? { plan } : {}) }),
    );
    if (switched !== 'switched') return undefined;
    await this.deps.postAll();
    if ('failed' in content.writer)
      notices.notice(
        'h',
        'warning',
        `The summariser could not write the handoff note (${content.writer.failed}), so it was built from the old session's plan, the files it touched and your last messages.`,
      );
    const text = handoffText(content);
    // The first turn's run is busy from here on (synchronously), before the handoff stops being.
    return { turn: this.deps.turns.run((next) => next.send(text)) };
  }

  /**
   * Offers the handoff (a notice with its button) after a compaction pass of the open session
   * when the rule says so (handoffOffer.ts), once per session.
   */
  observe(e: AgentEvent, open: Opened | undefined): void {
    if (e.type !== 'compaction_finished' || e.records.length === 0 || !open) return;
    if (this.offered.has(open.open.id)) return;
    const reason = offerOf(e.records, open.runtime);
    if (!reason) return;
    this.offered.add(open.open.id);
    this.deps.notices.notice('ho', 'info', offerText(reason), 'handoff');
  }
}

/** Why to offer a handoff after `records` were applied to the session of `rt`, if it should be. */
function offerOf(
  records: Extract<AgentEvent, { type: 'compaction_finished' }>['records'],
  rt: SessionRuntime,
): ReturnType<typeof handoffReason> {
  const state = rt.agent.state;
  return handoffReason({
    records,
    compactions: rt.agent.compactions,
    tokensAfter: rt.estimator.estimate(state).tokens,
    config: state.config,
  });
}
