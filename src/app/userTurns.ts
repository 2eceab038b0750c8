/**
 * The turns the user starts with words: Send, and Retry and Edit of their last message (the
 * conversation rewinds to it: core/compaction/rewind.ts). Each goes through the TurnRunner
 * (settings, key, preparation, busy); a message that did not go goes back to the composer.
 */
import type { AgentSession } from '../core/agent/agentSession';
import { REWIND_BUSY } from '../core/agent/rewindCommands';
import type { TurnInput } from '../core/conversation/assemble';
import { toWellFormed } from '../core/platform/text';
import type { ChatNotices } from './chatNotices';
import type { ChatViewPort, NextTurnPort } from './ports';
import type { Outcome, TurnRunner } from './turnRunner';

/** What the user's turns need from the chat service. */
export interface UserTurnsDeps {
  readonly view: ChatViewPort;
  readonly nextTurn: NextTurnPort;
  readonly notices: ChatNotices;
  readonly turns: Pick<TurnRunner, 'run' | 'busy'>;
  /** The open session's id (the context that goes with the next message is kept per session). */
  readonly sessionId: () => string | undefined;
  /** Posts the chips of the context that goes with the next message. */
  readonly postPendingContext: () => void;
  /** How many turns have started in this service's sessions (a sent message entered the conversation). */
  readonly turnsStarted: () => number;
}

/** Send, Retry on the last answer, Edit-and-resend of the last message; see the file comment. */
export class UserTurns {
  constructor(private readonly deps: UserTurnsDeps) {}

  /** Sends the user's words (and the images pasted with them) as a new turn, with the next message's context. */
  send(text: string, images: TurnInput['images'] = []): Promise<void> {
    return this.withWords(text, images, (agent, words) => agent.send(words, images));
  }

  /**
   * Retry on the last answer of the user's last message `messageId`: its answers leave the
   * conversation (kept as a rewind in the Compactions view) and it is answered again. Refused,
   * with the reason in the chat, while a turn runs or when `messageId` is not the last one.
   */
  async retryLast(messageId: string): Promise<void> {
    if (this.deps.turns.busy) return this.deps.notices.notice('n', 'warning', REWIND_BUSY);
    await this.deps.turns.run((agent) => agent.retryLast(messageId));
  }

  /**
   * Edit-and-resend: `text` (with `images`) replaces the user's last message `messageId` and
   * everything after it, and the turn runs. Refused (the words go back to the composer, the
   * reason in the chat) while a turn runs or when `messageId` is not the last one.
   */
  async editLast(messageId: string, text: string, images: TurnInput['images'] = []): Promise<void> {
    if (this.deps.turns.busy) {
      this.deps.notices.notice('n', 'warning', REWIND_BUSY);
      return this.deps.view.post({ type: 'unsent' });
    }
    await this.withWords(text, images, (agent, words) => agent.editLast(messageId, words, images));
  }

  /**
   * Runs `act` with the words made well formed and the next message's context given to the
   * agent; the context waits for the next message, and the composer takes the words back,
   * unless the message entered the conversation.
   */
  private async withWords(
    text: string,
    images: TurnInput['images'],
    act: (agent: AgentSession, words: string) => Promise<Outcome>,
  ): Promise<void> {
    // A lone surrogate would be stored and resent with every later request, which the API rejects.
    const words = toWellFormed(text);
    // The turns started before the agent took it: one more once the message entered the conversation.
    let before: number | undefined;
    const entered = () => before !== undefined && this.deps.turnsStarted() > before;
    await this.deps.turns.run(
      async (agent) => {
        const taken = this.deps.nextTurn.take(this.deps.sessionId());
        let sent = false;
        try {
          agent.setPending(taken.injections);
          this.deps.postPendingContext();
          before = this.deps.turnsStarted();
          const result = await act(agent, words);
          sent = result.ok;
          return result;
        } finally {
          // Not sent (refused, or failed before it was saved): the pins and dismissed chips wait for the next message.
          taken.settle(sent || entered());
          this.deps.postPendingContext();
        }
      },
      // Refused before it entered the conversation: the composer takes it back (before busy ends).
      { refused: () => this.deps.view.post({ type: 'unsent' }), entered },
    );
  }
}
