import type { ChatItem } from '../../protocol/chatItems';
import { el } from '../shared/dom';
import { scrollFrame } from './scrollFrame';
import { icon } from '../shared/icons';
import { displayText, escapeLine, piecesText, type Piece, type TextDisplay } from './visibleText';

type Approval = Extract<ChatItem, { kind: 'approval' }>;
type Risk = NonNullable<Approval['risk']>;

/** What an approval card can ask of the page. */
export interface ApprovalHandlers {
  /**
   * The user's answer; `reason` (optional) goes to the model; `remember` (an MCP call's
   * approval only) always allows that tool or its whole server from now on.
   */
  answer(id: string, approved: boolean, reason?: string, remember?: 'tool' | 'server'): void;
  /** Open the edit's diff in VS Code's diff editor. */
  openDiff(id: string): void;
}

/** The flag's label for each kind of risky file, on an edit's card. */
const RISK_LABELS: Readonly<Record<Risk['kind'], string>> = {
  'runs-code': 'This file can run code',
  'changes-settings': 'This file changes editor or agent settings',
  'holds-secrets': 'This file holds secrets',
};
/** The flag's label on a command's card: the command writes such a file. */
const COMMAND_RISK_LABELS: Readonly<Record<Risk['kind'], string>> = {
  'runs-code': 'This command writes a file that can run code',
  'changes-settings': 'This command changes editor or agent settings',
  'holds-secrets': 'This command writes a file that holds secrets',
};

/** Pieces as DOM: text as text nodes, escapes as marked spans (never HTML). */
export function renderPieces(pieces: readonly Piece[]): Array<Node | string> {
  return pieces.map((p) =>
    p.kind === 'text' ? p.text : el('span', { class: `esc ${p.category}`, title: p.title }, p.text),
  );
}

/** A command (or a call's input) shown whole: every line (escaped), blank-line runs as one marker. */
export function renderCommand(shown: TextDisplay, testId = 'approval-command'): HTMLElement {
  const pre = el('pre', { class: 'command', 'data-testid': testId });
  shown.lines.forEach((line, i) => {
    if (i > 0) pre.append('\n');
    if (line.kind === 'blank-run')
      pre.append(el('span', { class: 'esc blank-run', title: `${line.count} blank lines` }, line.text));
    else pre.append(...renderPieces(line.pieces));
  });
  return pre;
}

/** The card's warning box: the risk of an edited file and anything hidden in what is shown. */
export function renderWarnings(
  risk: Risk | undefined,
  warnings: readonly string[],
  of: 'edit' | 'command' = 'edit',
): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (risk)
    out.push(
      el(
        'div',
        { class: `risk ${risk.kind}`, role: 'alert', 'data-testid': 'approval-risk', 'data-risk': risk.kind },
        el('strong', {}, `⚠ ${(of === 'edit' ? RISK_LABELS : COMMAND_RISK_LABELS)[risk.kind]}: `),
        risk.reason,
        of === 'edit' ? '. Read the whole change before you apply it.' : '. Read the whole command before you run it.',
      ),
    );
  if (warnings.length > 0)
    out.push(
      el(
        'div',
        { class: 'hidden-chars', role: 'alert', 'data-testid': 'approval-hidden' },
        el('strong', {}, '⚠ Look closely: '),
        warnings.join(' '),
      ),
    );
  return out;
}

/**
 * The head of an edit's or a command's card, by its state: what Claude asks while it waits,
 * then what happened — `Edited src/a.ts`, `Ran a command`, or that the user declined it.
 */
export function approvalTitle(item: Pick<Approval, 'tool' | 'detail' | 'state'>): string {
  const created = item.detail.startsWith('new file');
  if (item.tool !== 'edit_file')
    return {
      pending: 'Claude wants to run a command ',
      approved: 'Ran a command ',
      rejected: 'Declined a command ',
      cancelled: 'Stopped before running a command ',
    }[item.state];
  return {
    pending: created ? 'Claude wants to create ' : 'Claude wants to edit ',
    approved: created ? 'Created ' : 'Edited ',
    rejected: created ? 'Declined creating ' : 'Declined the edit of ',
    cancelled: created ? 'Stopped before creating ' : 'Stopped before editing ',
  }[item.state];
}

/**
 * An inline approval: for an edit the diff (added/removed lines coloured, hunk headers
 * dimmed), with a prominent flag when the file can run code, change settings or hold
 * secrets; for a command every line of it, with blank-line runs collapsed into a visible
 * marker, its line count, and control, bidirectional and invisible characters shown as
 * escapes with a warning. Then Apply/Run, Reject/Don't run, an optional reason for the
 * model, and "Open diff" for edits. Once answered it shows the outcome and no buttons.
 * Text only: file content is never parsed as HTML.
 */
export function renderApproval(item: Approval, h: ApprovalHandlers): HTMLElement {
  const edit = item.tool === 'edit_file';
  const title = approvalTitle(item);
  const counts =
    edit && item.added !== undefined
      ? el(
          'span',
          { class: 'counts' },
          el('span', { class: 'added' }, `+${item.added}`),
          ' ',
          el('span', { class: 'removed' }, `−${item.removed ?? 0}`),
        )
      : '';
  const path = escapeLine(item.subject);
  const shown = edit ? undefined : displayText(item.subject);
  const lineCount = shown ? `(${shown.lineCount} ${shown.lineCount === 1 ? 'line' : 'lines'})` : '';
  const head = el(
    'div',
    { class: 'approval-head' },
    el('span', {}, title),
    edit
      ? el('code', { class: 'subject' }, ...renderPieces(path))
      : el('span', { class: 'muted line-count', 'data-testid': 'approval-line-count' }, lineCount),
    ' ',
    counts,
  );
  const label = `${title}${edit ? piecesText(path) : lineCount}`;
  const node = el(
    'div',
    {
      class: `item approval ${item.state}${item.risk ? ' risky' : ''}`,
      'data-id': item.id,
      'data-testid': 'approval',
      'data-state': item.state,
      role: 'group',
      'aria-label': label,
    },
    head,
  );
  if (edit) {
    const diff = el('pre', { class: 'diff', 'data-testid': 'approval-diff' });
    const code = { shortenSpaces: false, collapseBlankLines: false };
    const hidden = displayText([item.subject, ...(item.diff ?? []).map((l) => l.text)].join('\n'), code);
    for (const line of item.diff ?? []) {
      const cls = line.op === '+' ? 'add' : line.op === '-' ? 'del' : line.op === '@' ? 'hunk' : 'ctx';
      diff.append(
        el(
          'span',
          { class: `line ${cls}` },
          ...(line.op === '@' ? [line.text] : [line.op, ...renderPieces(escapeLine(line.text, code))]),
        ),
        '\n',
      );
    }
    if (item.omittedLines)
      diff.append(
        el(
          'span',
          { class: 'line hunk' },
          `… ${item.omittedLines.toLocaleString('en-US')} more diff lines — open the diff to see them all`,
        ),
      );
    node.append(...renderWarnings(item.risk, hidden.warnings), scrollFrame(diff));
    if (item.detail !== 'edit' && item.detail !== 'new file')
      node.append(el('div', { class: 'detail muted' }, item.detail.replace(/^(edit|new file) · /, '')));
  } else if (shown) {
    const scrolls =
      shown.lines.length > 12 ? ` — the box scrolls: read all ${shown.lineCount} lines before you run it` : '';
    node.append(
      ...renderWarnings(item.risk, shown.warnings, 'command'),
      renderCommand(shown),
      el('div', { class: 'detail muted' }, `${item.detail}${scrolls}`),
      // Said plainly: the child's environment leaves the key out, but a command of this user
      // can read the editor's own (/proc/<pid>/environ on Linux) and every file the user can.
      el(
        'div',
        { class: 'detail muted', 'data-testid': 'runs-as-you' },
        'It runs as you: it can read and change what your account can, including the editor’s environment (an API key set in ANTHROPIC_API_KEY).',
      ),
    );
  }
  if (item.state !== 'pending') {
    const outcome = {
      approved: edit ? 'Applied.' : 'Approved to run.',
      rejected: edit ? 'Declined.' : 'Not run.',
      cancelled: 'Cancelled (Stop was pressed).',
    }[item.state];
    node.append(el('div', { class: 'outcome', role: 'status' }, outcome, item.reason ? ` Reason: ${item.reason}` : ''));
    return node;
  }
  const reason = el('input', {
    class: 'reason',
    type: 'text',
    placeholder: 'Reason (optional, sent to Claude if you reject)',
    'aria-label': 'Reason for rejecting (Enter rejects)',
    'aria-keyshortcuts': 'Enter',
    maxlength: '2000',
  });
  const approve = el(
    'button',
    { class: 'primary with-icon', type: 'button', 'data-testid': 'approve' },
    icon('check'),
    edit ? 'Apply' : 'Run',
  );
  const reject = el(
    'button',
    { class: 'secondary with-icon', type: 'button', 'data-testid': 'reject' },
    icon('close'),
    edit ? 'Reject' : "Don't run",
  );
  const buttons = el('div', { class: 'approval-actions' }, approve, reject);
  if (edit) {
    const open = el(
      'button',
      { class: 'link', type: 'button', title: "Show the edit in VS Code's diff editor" },
      'Open diff',
    );
    open.addEventListener('click', () => h.openDiff(item.id));
    buttons.append(open);
  }
  const answer = (approved: boolean) => {
    // Focus leaves the controls about to be disabled for the card, which keeps it once answered (see replaceNode).
    if (node.contains(document.activeElement)) {
      node.setAttribute('tabindex', '-1');
      node.focus();
    }
    approve.disabled = true;
    reject.disabled = true;
    // The reason goes to Claude with a rejection; an approval needs none.
    h.answer(item.id, approved, approved ? undefined : reason.value.trim() || undefined);
  };
  approve.addEventListener('click', () => answer(true));
  reject.addEventListener('click', () => answer(false));
  reason.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' || e.isComposing) return;
    e.preventDefault();
    answer(false);
  });
  node.append(reason, buttons);
  return node;
}
