/**
 * Which session is open, and switching it: open the latest on first use, start a new one,
 * resume a stored one. Switches run one at a time (a resume arriving while a new session is
 * being created waits for it, then switches), and a switch superseded by a later New or
 * Resume before its session arrived is dropped (the session it opened is closed again), so
 * the chat always ends on the session asked for last. A switch is refused while a turn runs,
 * which it does from Send on (while the message is prepared too); a message sent while a
 * switch is under way waits for it and goes to the session switched to.
 */
import type { PipelineConfig } from '../core/conversation/conversationModel';
import type { LogPort, Notifier, SessionRuntime, SettingsPort } from './ports';
import type { OpenSession, SessionPort } from './sessionPort';
import { errorDetail } from '../core/text/errors';

/** The pipeline config the settings resolve to, or undefined when they are invalid. */
export function validConfig(settings: Pick<SettingsPort, 'pipelineConfig'>): PipelineConfig | undefined {
  const r = settings.pipelineConfig();
  return r.ok ? r.config : undefined;
}

/** The open session and its runtime. */
export interface Opened {
  readonly open: OpenSession;
  readonly runtime: SessionRuntime;
}

/**
 * What a New or Resume did: `switched` (to a session, or to none when the settings are
 * invalid), refused while a turn runs (`busy`), already open (`same`), the session could not
 * be loaded (`failed`), or a later switch won (`superseded`).
 */
export type SwitchOutcome = 'switched' | 'busy' | 'same' | 'failed' | 'superseded';

/** What the lifecycle needs. */
export interface SessionLifecycleDeps {
  readonly sessions: SessionPort;
  /** The resolved config, or undefined when the settings are invalid (then no session opens). */
  readonly config: () => PipelineConfig | undefined;
  /** Builds the runtime of an opened session. */
  readonly start: (open: OpenSession, config: PipelineConfig) => Promise<SessionRuntime>;
  /** Told after a session became the open one (before the switch resolves). */
  readonly opened: (o: Opened) => void;
  /**
   * Whether a turn runs from the chat's point of view: from Send on, while the message is
   * still prepared (before the agent itself is busy), until its outcome is posted.
   */
  readonly turnRunning: () => boolean;
  readonly notifier: Notifier;
  readonly log: LogPort;
}

/** Owns the open session; see the file comment for the ordering rules. */
export class SessionLifecycle {
  private currentValue: Opened | undefined;
  private generation = 0;
  private lock: Promise<unknown> = Promise.resolve();
  private ensuring: Promise<void> | undefined;
  /** New and Resume calls not yet resolved (queued or running). */
  private switching = 0;

  constructor(private readonly deps: SessionLifecycleDeps) {}

  /** The open session, if any. */
  get current(): Opened | undefined {
    return this.currentValue;
  }

  /**
   * Opens the latest session (or a new one) when none is open; waits for a switch under way
   * (a message sent meanwhile goes to the session switched to, not to the one being closed).
   * A failure is logged and shown, and the next call tries again.
   */
  async ensure(): Promise<Opened | undefined> {
    if (this.currentValue && !this.ensuring && this.switching === 0) return this.currentValue;
    this.ensuring ??= this.exclusive(async () => {
      if (this.currentValue) return;
      const config = this.deps.config();
      if (!config) return;
      const open = (await this.deps.sessions.openLatest()) ?? (await this.deps.sessions.create(config.model));
      await this.install(open, config);
    })
      .catch((err: unknown) => {
        // Reported, not swallowed: the next message tries again (e.g. after the disk or settings are fixed).
        this.deps.log.error(`Could not open a session: ${errorDetail(err)}`);
        this.deps.notifier.error(
          `Context Pipeline could not open a session: ${err instanceof Error ? err.message : String(err)}`,
        );
      })
      .finally(() => {
        this.ensuring = undefined;
      });
    await this.ensuring;
    return this.currentValue;
  }

  /**
   * Starts a fresh session (the old one stays on disk); `create` makes it (a handoff's, which
   * names the session it continues), else an empty one.
   */
  fresh(create?: (model: string) => Promise<OpenSession>): Promise<SwitchOutcome> {
    const generation = ++this.generation;
    return this.switch(async () => {
      if (generation !== this.generation) return 'superseded';
      if (this.running()) {
        this.deps.notifier.warn('Context Pipeline: stop the running turn before starting a new session.');
        return 'busy';
      }
      const config = this.deps.config();
      const open = config ? await (create ?? ((m) => this.deps.sessions.create(m)))(config.model) : undefined;
      if (generation !== this.generation) {
        await open?.close();
        return 'superseded';
      }
      await this.closeCurrent();
      if (open && config) await this.install(open, config);
      return 'switched';
    });
  }

  /** Switches to the stored session `id`. */
  resume(id: string): Promise<SwitchOutcome> {
    const generation = ++this.generation;
    return this.switch(async () => {
      if (generation !== this.generation) return 'superseded';
      if (this.running()) {
        this.deps.notifier.warn('Context Pipeline: stop the running turn before switching sessions.');
        return 'busy';
      }
      if (this.currentValue?.open.id === id) return 'same';
      const r = await this.deps.sessions.open(id);
      if (generation !== this.generation) {
        // A later New or Resume won while this one loaded: its result is stale.
        if (r.ok) await r.session.close();
        return 'superseded';
      }
      if (!r.ok) {
        this.deps.notifier.error(`Context Pipeline: could not open the session: ${r.error}`);
        return 'failed';
      }
      await this.closeCurrent();
      const config = this.deps.config();
      if (config) await this.install(r.session, config);
      else await r.session.close();
      return 'switched';
    });
  }

  /** Stops the running turn and closes the open session. */
  async dispose(): Promise<void> {
    this.currentValue?.runtime.agent.stop();
    await this.closeCurrent();
  }

  /** Whether a turn runs: the open agent's, or a message sent and not yet settled (see deps). */
  private running(): boolean {
    return (this.currentValue?.runtime.agent.busy ?? false) || this.deps.turnRunning();
  }

  /** Runs a New or Resume after the switches before it, counted while it is pending (see ensure). */
  private async switch(op: () => Promise<SwitchOutcome>): Promise<SwitchOutcome> {
    this.switching++;
    try {
      return await this.exclusive(op);
    } finally {
      this.switching--;
    }
  }

  private async closeCurrent(): Promise<void> {
    const old = this.currentValue;
    this.currentValue = undefined;
    old?.runtime.dispose?.();
    await old?.open.close();
  }

  private async install(open: OpenSession, config: PipelineConfig): Promise<void> {
    for (const r of open.repairs) this.deps.log.warn(`Session ${open.id}: ${r}`);
    if (open.repairs.length > 0)
      this.deps.notifier.warn(`Context Pipeline repaired the session file: ${open.repairs.join(' ')}`);
    const runtime = await this.deps.start(open, config);
    this.currentValue = { open, runtime };
    this.deps.opened(this.currentValue);
  }

  /** Runs `op` after every switch queued before it (one at a time). */
  private exclusive<T>(op: () => Promise<T>): Promise<T> {
    const run = this.lock.then(op);
    this.lock = run.catch(() => undefined);
    return run;
  }
}
