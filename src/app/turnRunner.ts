/**
 * A send or a retry, from Send until its outcome is in the chat: the settings and API key checks, the
 * preparation (the session opening, the project context being read; `sendPreparation.ts`:
 * busy from Send on, a Stop meanwhile keeps the message from going), the agent's action, and
 * the notices and status after it.
 */
import type { AgentSession } from '../core/agent/agentSession';
import type { PipelineConfig } from '../core/conversation/conversationModel';
import { inBackground } from '../core/platform/background';
import { errorDetail, errorText } from '../core/text/errors';
import { classifyBaseUrl } from '../core/security/endpoint';
import { NOT_OPENED, STOPPED_BEFORE_SENT, noApiKey, type ChatNotices } from './chatNotices';
import type { ApiKeyPort, LogPort, ProjectNotice, SessionRuntime, SettingsPort } from './ports';
import { SendPreparation } from './sendPreparation';
import type { Opened } from './sessionLifecycle';

/** A result of the agent's commands. */
export type Outcome =
  | { ok: true }
  /** `byUser`: the user stopped or cancelled it (the chat says so; nothing to warn about). */
  | { ok: false; reason: string; byUser?: true };

/**
 * How a send gives its message back when it did not go: `refused` tells the composer (the words
 * and images go back in the box); `entered` says whether the message entered the conversation
 * (saved: a failure after that is the turn's, and nothing is given back).
 */
export interface GiveBack {
  readonly refused: () => void;
  readonly entered: () => boolean;
}

/** What a run needs from the chat service. */
export interface TurnRunnerDeps {
  readonly settings: SettingsPort;
  /** Whether an API key is set (a send without one, to a server that needs one, is refused before it goes). */
  readonly apiKeys: ApiKeyPort;
  readonly notices: ChatNotices;
  /** Where an unexpected failure is logged with its stack. */
  readonly log: LogPort;
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
  /** Runs from Send until their outcome is posted (the words given back included). */
  private unsettled = 0;

  constructor(private readonly deps: TurnRunnerDeps) {}

  /**
   * Whether the chat is busy: a turn runs, or a message is sent and its outcome not yet posted
   * (while it is prepared, and until a message that did not go is back in the composer).
   */
  get busy(): boolean {
    return (this.deps.agent()?.busy ?? false) || this.unsettled > 0;
  }

  /** Resolves once no message is being prepared (a message that goes has started its turn by then). */
  prepared(): Promise<void> {
    return this.preparing.settled();
  }

  /** Stops the running turn, or a message still being prepared (it is then not sent). */
  stop(): void {
    const agent = this.deps.agent();
    if (!agent?.busy) this.preparing.stop();
    agent?.stop();
  }

  /**
   * Runs `action` (the agent's send or retry) as a turn from Send on; see the file comment.
   * `giveBack.refused` is called when a send did not go (the composer takes the words back),
   * before the status that ends busy: the composer is never idle and empty in between, where
   * words typed would be overwritten or a queued message sent in place of the one given back.
   * A failure thrown before the message entered the conversation (the preparation, or the
   * agent before it saved the message) is logged, said in the chat as an error, and the
   * message given back; one thrown after is logged and said in the chat as an error (with
   * Retry while the message is unanswered), never thrown at the caller.
   */
  async run(action: (agent: AgentSession) => Promise<Outcome>, giveBack?: GiveBack): Promise<void> {
    const refused = giveBack?.refused ?? (() => undefined);
    const resolved = this.deps.settings.pipelineConfig();
    if (!resolved.ok) {
      this.deps.notices.error(
        `${resolved.error} Change it in Settings (contextPipeline.*); your message was not sent.`,
      );
      return refused();
    }
    this.unsettled++;
    let acting = false;
    try {
      if (await this.keyMissing()) {
        // Before the message enters the conversation: it neither goes nor names the session.
        this.deps.notices.error(noApiKey(giveBack !== undefined), false, 'setApiKey');
        refused();
      } else if (!(await this.attempt(action, resolved.config, () => (acting = true)))) refused();
    } catch (err) {
      if (acting && (giveBack?.entered() ?? true)) this.failedInTurn(err, giveBack !== undefined);
      else {
        this.failed(err, giveBack !== undefined);
        refused();
      }
    } finally {
      this.unsettled--;
      await this.deps.postStatus();
    }
  }

  /** No key is set, and requests go where one is needed (a server on this machine gets a placeholder). */
  private async keyMissing(): Promise<boolean> {
    if ((await this.deps.apiKeys.status()) !== 'missing') return false;
    const baseUrl = this.deps.settings.agent().baseUrl;
    return !baseUrl || classifyBaseUrl(baseUrl).kind !== 'local';
  }

  /** An unexpected failure before the message went: logged with its stack and said in the chat. */
  private failed(err: unknown, send: boolean): void {
    this.deps.log.error(`${send ? 'Send' : 'Retry'} failed: ${errorDetail(err)}`);
    this.deps.notices.error(
      send
        ? `Your message was not sent: ${errorText(err)}. It is back in the message box; see the "Context Pipeline" output for details.`
        : `The retry did not start: ${errorText(err)}. See the "Context Pipeline" output for details.`,
    );
  }

  /**
   * An unexpected failure after the message entered the conversation (saved: nothing is given
   * back): logged with its stack and said in the chat as an error, with Retry when the message
   * is still unanswered and no turn runs (Retry then sends it again).
   */
  private failedInTurn(err: unknown, send: boolean): void {
    this.deps.log.error(`${send ? 'Send' : 'Retry'} failed after the message was saved: ${errorDetail(err)}`);
    const agent = this.deps.agent();
    const unanswered = agent !== undefined && !agent.busy && agent.state.messages.at(-1)?.role === 'user';
    this.deps.notices.error(
      `${send ? 'Your message was saved, but its turn' : 'The retry'} failed: ${errorText(err)}.${unanswered ? ' Retry sends it again;' : ''} See the "Context Pipeline" output for details.`,
      unanswered,
    );
  }

  /**
   * Prepares the turn and runs `action` (`acting` is called just before); whether it went (a
   * refusal is said in the chat).
   */
  private async attempt(
    action: (agent: AgentSession) => Promise<Outcome>,
    config: PipelineConfig,
    acting: () => void,
  ): Promise<boolean> {
    const { notices, postStatus } = this.deps;
    // Busy from Send on: the composer shows Stop (a second Enter queues) while the session opens
    // and the project context is read, so a waiting message is never invisible.
    this.preparing.begin();
    let o: Opened | undefined;
    try {
      inBackground(postStatus(), this.deps.log, 'Posting the status');
      o = await this.deps.ensure();
      if (o) notices.project(await this.deps.prepare(o.runtime, config));
    } finally {
      this.preparing.end();
    }
    if (!o) {
      notices.error(NOT_OPENED);
      return false;
    }
    if (this.preparing.wasStopped && !o.runtime.agent.busy) {
      notices.notice('s', 'info', STOPPED_BEFORE_SENT);
      return false;
    }
    acting();
    const started = action(o.runtime.agent);
    await postStatus();
    const result = await started;
    if (!result.ok) notices.notice('n', 'warning', result.reason);
    return result.ok;
  }
}
