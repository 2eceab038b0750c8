import type { ChatItem } from '../../protocol/chatItems';
import { el } from '../shared/dom';

type Approval = Extract<ChatItem, { kind: 'approval' }>;

/** What an approval card can ask of the page. */
export interface ApprovalHandlers {
  /** The user's answer; `reason` (optional) goes to the model. */
  answer(id: string, approved: boolean, reason?: string): void;
  /** Open the edit's diff in VS Code's diff editor. */
  openDiff(id: string): void;
}

/**
 * An inline approval: for an edit the diff (added/removed lines coloured, hunk headers
 * dimmed), for a command the command line; then Apply/Run, Reject/Don't run, an optional
 * reason for the model, and "Open diff" for edits. Once answered it shows the outcome and
 * no buttons. Text only: file content is never parsed as HTML.
 */
export function renderApproval(item: Approval, h: ApprovalHandlers): HTMLElement {
  const edit = item.tool === 'edit_file';
  const title = edit ? (item.detail.startsWith('new file') ? 'Claude wants to create ' : 'Claude wants to edit ') : 'Claude wants to run a command ';
  const counts = edit && item.added !== undefined ? el('span', { class: 'counts' }, el('span', { class: 'added' }, `+${item.added}`), ' ', el('span', { class: 'removed' }, `−${item.removed ?? 0}`)) : '';
  const head = el('div', { class: 'approval-head' }, el('span', {}, title), el('code', { class: 'subject' }, edit ? item.subject : ''), ' ', counts);
  const node = el('div', { class: `item approval ${item.state}`, 'data-id': item.id, 'data-testid': 'approval', 'data-state': item.state, role: 'group', 'aria-label': `${title}${item.subject}` }, head);
  if (edit) {
    const diff = el('pre', { class: 'diff', 'data-testid': 'approval-diff' });
    for (const line of item.diff ?? []) {
      const cls = line.op === '+' ? 'add' : line.op === '-' ? 'del' : line.op === '@' ? 'hunk' : 'ctx';
      diff.append(el('span', { class: `line ${cls}` }, line.op === '@' ? line.text : `${line.op}${line.text}`), '\n');
    }
    if (item.omittedLines) diff.append(el('span', { class: 'line hunk' }, `… ${item.omittedLines.toLocaleString('en-US')} more diff lines — open the diff to see them all`));
    node.append(diff);
    if (item.detail !== 'edit' && item.detail !== 'new file') node.append(el('div', { class: 'detail muted' }, item.detail.replace(/^(edit|new file) · /, '')));
  } else {
    node.append(el('pre', { class: 'command', 'data-testid': 'approval-command' }, item.subject), el('div', { class: 'detail muted' }, item.detail));
  }
  if (item.state !== 'pending') {
    const outcome = { approved: edit ? 'Applied.' : 'Approved to run.', rejected: edit ? 'Rejected.' : 'Not run.', cancelled: 'Cancelled (Stop was pressed).' }[item.state];
    node.append(el('div', { class: 'outcome', role: 'status' }, outcome, item.reason ? ` Reason: ${item.reason}` : ''));
    return node;
  }
  const reason = el('input', { class: 'reason', type: 'text', placeholder: 'Reason (optional, sent to Claude if you reject)', 'aria-label': 'Reason for rejecting', maxlength: '2000' });
  const approve = el('button', { class: 'primary', type: 'button', 'data-testid': 'approve' }, edit ? 'Apply' : 'Run');
  const reject = el('button', { class: 'secondary', type: 'button', 'data-testid': 'reject' }, edit ? 'Reject' : "Don't run");
  const buttons = el('div', { class: 'approval-actions' }, approve, reject);
  if (edit) {
    const open = el('button', { class: 'link', type: 'button', title: "Show the edit in VS Code's diff editor" }, 'Open diff');
    open.addEventListener('click', () => h.openDiff(item.id));
    buttons.append(open);
  }
  const answer = (approved: boolean) => {
    approve.disabled = true;
    reject.disabled = true;
    // The reason goes to Claude with a rejection; an approval needs none.
    h.answer(item.id, approved, approved ? undefined : reason.value.trim() || undefined);
  };
  approve.addEventListener('click', () => answer(true));
  reject.addEventListener('click', () => answer(false));
  reason.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') answer(false);
  });
  node.append(reason, buttons);
  return node;
}
