/**
 * What goes with the user's next message besides their words: the editor context (opened
 * file, selection) and the selections pinned with Pin Selection. The chat shows it as chips
 * above the input; a chip clicked away is left out of this turn only. Pure: no VS Code.
 */
import { renderInjection } from '../../core/conversation/injections';
import type { Injection } from '../../core/conversation/conversationModel';
import { sameSelection } from '../editorContext';

type Selection = Extract<Injection, { kind: 'ide_selection' }>;
type Attached = Extract<Injection, { kind: 'attached_file' }>;

/** Where the editor context comes from (the EditorContextTracker in the extension). */
export interface EditorContextSource {
  /** What the next turn would carry now, and the URI of the opened file among it (if any). */
  snapshot(session?: string): { injections: Injection[]; openedUri?: string };
  /** Remembers that the opened file `uri` went with a message of `session` (not offered again until it changes). */
  markTold(session: string | undefined, uri: string): void;
}

/** The context of a message being sent: settle it once the message was (or was not) accepted. */
export interface TakenContext {
  readonly injections: Injection[];
  /**
   * `sent`: the message went into the history — the pins are spent, the dismissals forgotten
   * and the opened file remembered as told. Otherwise the pins go back to the queue and the
   * dismissals stay, as if nothing had been sent. Idempotent; only the first call counts.
   */
  settle(sent: boolean): void;
}

/** One chip above the input. */
export interface ContextChip {
  /** Identifies the chip for a dismissal; changes when the lines or the file change. */
  readonly key: string;
  readonly tag: string;
  /** `src/a.ts` or `src/a.ts:3-5`. */
  readonly label: string;
  /** The exact tagged block that would be sent. */
  readonly text: string;
  readonly tokens: number;
  readonly pinned: boolean;
  /** A file mentioned with `@` that could not be attached: why (nothing of it is sent). */
  readonly error?: string;
}

/** A stable key for an injection: file, lines and a hash of the text for selections. */
export function injectionKey(i: Injection): string {
  switch (i.kind) {
    case 'ide_opened_file':
      return `file:${i.path}`;
    case 'ide_selection':
      return `${i.pinned ? 'pin' : 'sel'}:${i.path}:${i.startLine}-${i.endLine}:${hash(i.text)}`;
    case 'attached_file':
      return `att:${i.path}`;
    case 'system_reminder':
      return `reminder:${hash(i.text)}`;
    case 'hook':
      return `hook:${i.tag}:${hash(i.text)}`;
  }
}

/** The key of the chip of a file that could not be attached. */
function refusedKey(path: string): string {
  return `refused:${path}`;
}

/**
 * The next turn's context: editor context minus dismissed chips, then the queued pins, then
 * the files attached with `@` (and, as chips only, those that could not be).
 */
export class NextTurnContext {
  private pins: Selection[] = [];
  private attached: Attached[] = [];
  private refused: Array<{ readonly path: string; readonly reason: string }> = [];
  private readonly dismissed = new Set<string>();

  constructor(private readonly editor: EditorContextSource) {}

  /** Queues a pinned selection for the next message; false when the same lines are already queued. */
  pin(selection: Selection): boolean {
    const pinned: Selection = { ...selection, pinned: true };
    if (this.pins.some((p) => sameSelection(p, pinned))) return false;
    this.pins.push(pinned);
    return true;
  }

  /**
   * Attaches a file's text to the next message (it replaces an earlier attachment of the same
   * path, and a refusal of it).
   */
  attach(file: Attached): void {
    this.refused = this.refused.filter((r) => r.path !== file.path);
    this.attached = [...this.attached.filter((a) => a.path !== file.path), file];
  }

  /** A file mentioned with `@` could not be attached: shown as a chip with `reason` until dismissed or sent. */
  refuse(path: string, reason: string): void {
    this.attached = this.attached.filter((a) => a.path !== path);
    this.refused = [...this.refused.filter((r) => r.path !== path), { path, reason }];
  }

  /** Leaves a chip out of the next turn (a pin or attachment is dropped from the queue). Unknown keys are ignored. */
  dismiss(key: string): void {
    const before = this.pins.length + this.attached.length + this.refused.length;
    this.pins = this.pins.filter((p) => injectionKey(p) !== key);
    this.attached = this.attached.filter((a) => injectionKey(a) !== key);
    this.refused = this.refused.filter((r) => refusedKey(r.path) !== key);
    const after = this.pins.length + this.attached.length + this.refused.length;
    // (At most 50 remembered: keys come from the webview; the oldest are forgotten first.)
    if (after === before) this.dismissed.add(key);
    if (this.dismissed.size > 50) this.dismissed.delete(this.dismissed.values().next().value as string);
  }

  /** The chips the chat shows now, with tokens counted by `count` on the exact tagged text. */
  chips(session: string | undefined, count: (text: string) => number): ContextChip[] {
    const refused: ContextChip[] = this.refused.map((r) => ({
      key: refusedKey(r.path),
      tag: 'attached_file',
      label: r.path,
      text: `Not attached: ${r.reason}`,
      tokens: 0,
      pinned: false,
      error: r.reason,
    }));
    const chips = this.preview(session).map((i) => {
      const text = renderInjection(i);
      return {
        key: injectionKey(i),
        tag: i.kind,
        label: labelOf(i),
        text,
        tokens: Math.round(count(text)),
        pinned: i.kind === 'ide_selection' && i.pinned === true,
      };
    });
    return [...chips, ...refused];
  }

  /** What the next turn would carry now (for the request preview), without consuming anything. */
  preview(session: string | undefined): Injection[] {
    return this.candidates(this.editor.snapshot(session).injections);
  }

  /**
   * The injections of the message being sent. Its pins leave the queue at once (they are in
   * flight, no longer chips); settle() says whether they are spent or come back.
   */
  take(session: string | undefined): TakenContext {
    const snap = this.editor.snapshot(session);
    const injections = this.candidates(snap.injections);
    const pins = this.pins;
    const attached = this.attached;
    const dismissed = [...this.dismissed];
    this.pins = [];
    this.attached = [];
    let settled = false;
    return {
      injections,
      settle: (sent) => {
        if (settled) return;
        settled = true;
        if (!sent) {
          this.pins = [...pins, ...this.pins.filter((p) => !pins.some((q) => sameSelection(p, q)))];
          this.attached = [...attached.filter((a) => !this.attached.some((b) => b.path === a.path)), ...this.attached];
          return;
        }
        this.refused = [];
        for (const key of dismissed) this.dismissed.delete(key);
        if (snap.openedUri && injections.some((i) => i.kind === 'ide_opened_file'))
          this.editor.markTold(session, snap.openedUri);
      },
    };
  }

  /** Editor context not dismissed and not already queued as a pin, then the pins, then the attached files. */
  private candidates(editor: readonly Injection[]): Injection[] {
    const fromEditor = editor.filter(
      (i) => !this.dismissed.has(injectionKey(i)) && !this.pins.some((p) => sameSelection(p, i)),
    );
    return [...fromEditor, ...this.pins, ...this.attached];
  }
}

function labelOf(i: Injection): string {
  switch (i.kind) {
    case 'ide_opened_file':
      return i.path;
    case 'ide_selection':
      return `${i.path}:${i.startLine}-${i.endLine}`;
    case 'attached_file':
      return i.path;
    case 'system_reminder':
      return 'reminder';
    case 'hook':
      return i.tag;
  }
}

/** FNV-1a, 32 bits, as hex: enough to tell two selections of the same lines apart. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16);
}
