/**
 * The context that goes with the next message, as the chat shows it: pinned selections
 * (never compacted) and the editor-context chips, with their token counts and which kinds the
 * settings turned off.
 */
import type { Injection } from '../core/conversation/conversationModel';
import { toWellFormed } from '../core/platform/text';
import type { ChatViewPort, LogPort, NextTurnPort, Notifier, SettingsPort } from './ports';
import type { TokensOf } from './tokensOf';

/** A selection to pin for the next message. */
export interface PinnedSelection {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly text: string;
  readonly truncatedChars?: number;
}

/** What the pending context needs; `session` and `tokensOf` are read at each post. */
export interface PendingContextDeps {
  readonly view: ChatViewPort;
  readonly nextTurn: NextTurnPort;
  readonly settings: SettingsPort;
  readonly notifier: Notifier;
  readonly log: LogPort;
  readonly session: () => string | undefined;
  readonly tokensOf: () => TokensOf | undefined;
}

/** Pins, dismissals and the chips posted to the chat. */
export class PendingContext {
  constructor(private readonly deps: PendingContextDeps) {}

  /** Queues a selection to go with the next message as a pinned block (never compacted), and says so. */
  pin(pin: PinnedSelection): void {
    const injection: Extract<Injection, { kind: 'ide_selection' }> = {
      kind: 'ide_selection',
      ...pin,
      path: toWellFormed(pin.path),
      text: toWellFormed(pin.text),
      pinned: true,
    };
    this.deps.nextTurn.pin(injection);
    this.post();
    const lines = pin.endLine - pin.startLine + 1;
    this.deps.log.info(`Pinned lines ${pin.startLine}–${pin.endLine} of ${pin.path} for the next message.`);
    this.deps.notifier.info(
      `Pinned ${lines} ${lines === 1 ? 'line' : 'lines'} of ${pin.path}; they go with your next message and are never compacted.`,
    );
  }

  /** Leaves a context chip out of the next message. */
  dismiss(key: string): void {
    this.deps.nextTurn.dismiss(key);
    this.post();
  }

  /** Posts the chips of the context that goes with the next message (chars/4 before a session is open). */
  post(): void {
    const counter = this.deps.tokensOf();
    const count = (text: string) => (counter ? counter.text(text) : Math.ceil(text.length / 4));
    const settings = this.deps.settings.editorContext();
    const disabled = [
      ...(settings.selection ? [] : ['ide_selection' as const]),
      ...(settings.openedFile ? [] : ['ide_opened_file' as const]),
    ];
    this.deps.view.post({
      type: 'pendingContext',
      chips: this.deps.nextTurn.chips(this.deps.session(), count),
      disabled,
    });
  }
}
