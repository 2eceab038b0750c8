/**
 * Reading the open session's project context again (instruction files, workspace facts): on
 * Reload Project Instructions, and when their settings changed. What changed is said in the chat.
 */
import type { ChatNotices } from './chatNotices';
import type { Notifier, SessionRuntime } from './ports';
import type { SessionLifecycle } from './sessionLifecycle';

/** Reloads the project context; see the file comment. */
export class ProjectReload {
  /** `sessions`: the open session (opened for Reload, not for a settings change); `postStatus` refreshes the header. */
  constructor(
    private readonly sessions: Pick<SessionLifecycle, 'ensure' | 'current'>,
    private readonly notices: ChatNotices,
    private readonly notifier: Notifier,
    private readonly postStatus: () => Promise<void>,
  ) {}

  /** Reload Project Instructions: reads instructions and facts again and says in the chat what changed. */
  async reload(): Promise<void> {
    const o = await this.sessions.ensure();
    if (!o) return this.notifier.warn('Context Pipeline: no session is open.');
    await this.apply(o.runtime);
  }

  /**
   * The project-context settings changed (`instructions.*`, `workspaceFacts`): the open
   * session reads its instructions and facts again and says what changed (from the next turn
   * when one runs). No session is opened for it; a session opened later reads them anyway.
   */
  async settingsChanged(): Promise<void> {
    const o = this.sessions.current;
    if (o) await this.apply(o.runtime);
  }

  /** Reads the session's instructions and facts again, says what changed, and refreshes the status. */
  private async apply(runtime: SessionRuntime): Promise<void> {
    this.notices.project(await runtime.project.reload(runtime.agent));
    await this.postStatus();
  }
}
