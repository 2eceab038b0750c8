/**
 * A send or a retry, from Send until its outcome is in the chat: the settings check, the
 * preparation (the session opening, the project context being read; `sendPreparation.ts`:
 * busy from Send on, a Stop meanwhile keeps the message from going), the agent's action, and
 * the notices and status after it.
 */
import type { AgentSession } from '../core/agent/agentSession';
import type { PipelineConfig } from '../core/conversation/conversationModel';
import { NOT_OPENED, STOPPED_BEFORE_SENT, type ChatNotices } from './chatNotices';
import type { ProjectNotice, SessionRuntime, SettingsPort } from './ports';
import { SendPreparation } from './sendPreparation';
import type { Opened } from './sessionLifecycle';

/** A result of the agent's commands. */
export type Outcome = { ok: true } | { ok: false; reason: string };

/** What a run needs from the chat service. */
export interface TurnRunnerDeps {
  readonly settings: SettingsPort;
  readonly notices: ChatNotices;
  /** The open session, opening one when none is (SessionLifecycle.ensure). */
  readonly ensure: () => Promise<Opened | undefined>;
  /** Gives the agent the config and tools, and waits for the project context. */
  readonly prepare: (runtime: SessionRuntime, config: PipelineConfig) => Promise<readonly ProjectNotice[]>;
  /** Posts the header status (busy as {@link TurnRunner.busy} says). */
  readonly postStatus: () => Promise<void>;
  /** The open session's agent, if one is open. */
  readonly agent: () => AgentSession | undefined;
}

/** Runs sends and retries; see the file comment. */
export class TurnRunner {
  private readonly preparing = new SendPreparation();

  constructor(private readonly deps: TurnRunnerDeps) {}

  /** Whether the chat is busy: a turn runs, or a message is being prepared. */
  get busy(): boolean {
    return (this.deps.agent()?.busy ?? false) || this.preparing.active;
  }

  /** Stops the running turn, or a message still being prepared (it is then not sent). */
  stop(): void {
    const agent = this.deps.agent();
    if (!agent?.busy) this.preparing.stop();
    agent?.stop();
  }

  /** Runs `action` (the agent's send or retry) as a turn from Send on; see the file comment. */
  async run(action: (agent: AgentSession) => Promise<Outcome>): Promise<void> {
    const { notices, postStatus } = this.deps;
    const resolved = this.deps.settings.pipelineConfig();
    if (!resolved.ok)
      return notices.error(`${resolved.error} Change it in Settings (contextPipeline.*); your message was not sent.`);
    // Busy from Send on: the composer shows Stop (a second Enter queues) while the session opens
    // and the project context is read, so a waiting message is never invisible.
    this.preparing.begin();
    let o: Opened | undefined;
    try {
      void postStatus();
      o = await this.deps.ensure();
      if (o) notices.project(await this.deps.prepare(o.runtime, resolved.config));
    } finally {
      this.preparing.end();
    }
    if (!o) {
      notices.error(NOT_OPENED);
      return postStatus();
    }
    if (this.preparing.wasStopped && !o.runtime.agent.busy) {
      notices.notice('s', 'info', STOPPED_BEFORE_SENT);
      return postStatus();
    }
    const { agent } = o.runtime;
    const started = action(agent);
    await postStatus();
    const result = await started;
    if (!result.ok) notices.notice('n', 'warning', result.reason);
    await postStatus();
  }
}
