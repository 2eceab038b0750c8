/**
 * The approval card of an MCP tool's call: which tool of which server, the tool's own
 * description (collapsed; untrusted text from the server, shown so a poisoned one can be
 * read), the input as JSON with hidden characters shown as escapes, then Allow, Always allow
 * the tool, Always allow the server, Deny with an optional reason. Text only, never HTML.
 */
import type { ChatItem } from '../../protocol/chatItems';
import { el } from '../shared/dom';
import { icon } from '../shared/icons';
import { renderCommand, renderPieces, renderWarnings, type ApprovalHandlers } from './approvalCard';
import { displayText, escapeLine } from './visibleText';

type Approval = Extract<ChatItem, { kind: 'approval' }>;

/** Renders an approval item whose `tool` is `mcp`. */
export function renderToolCallApproval(item: Approval, h: ApprovalHandlers): HTMLElement {
  const mcp = item.mcp ?? { server: '?', tool: item.detail, description: '', readOnly: false };
  const code = { shortenSpaces: false, collapseBlankLines: true };
  const input = displayText(item.subject, code);
  const described = displayText(mcp.description, code);
  const title = item.state === 'approved' ? 'Claude used ' : 'Claude wants to use ';
  const node = el(
    'div',
    {
      class: `item approval mcp ${item.state}`,
      'data-id': item.id,
      'data-testid': 'approval',
      'data-state': item.state,
      'data-tool': 'mcp',
      role: 'group',
      'aria-label': `${title}${mcp.tool} from the MCP server ${mcp.server}`,
    },
    el(
      'div',
      { class: 'approval-head' },
      el('span', {}, title),
      el('code', { class: 'subject' }, ...renderPieces(escapeLine(mcp.tool))),
      el('span', { class: 'muted server' }, ' from ', el('strong', {}, mcp.server)),
      mcp.readOnly ? el('span', { class: 'badge', title: 'The server says this tool only reads' }, 'read-only') : '',
    ),
  );
  const about = el(
    'details',
    { class: 'tool-description', 'data-testid': 'approval-description' },
    el('summary', {}, 'What the server says this tool does'),
    el(
      'div',
      { class: 'description' },
      mcp.description === '' ? '(no description)' : renderCommand(described, 'approval-description-text'),
    ),
  );
  node.append(
    ...renderWarnings(undefined, [...input.warnings, ...described.warnings]),
    about,
    renderCommand(input, 'approval-input'),
  );
  if (item.state !== 'pending') {
    const outcome = { approved: 'Allowed.', rejected: 'Denied.', cancelled: 'Cancelled (Stop was pressed).' }[
      item.state
    ];
    node.append(el('div', { class: 'outcome', role: 'status' }, outcome, item.reason ? ` Reason: ${item.reason}` : ''));
    return node;
  }
  const reason = el('input', {
    class: 'reason',
    type: 'text',
    placeholder: 'Reason (optional, sent to Claude if you deny)',
    'aria-label': 'Reason for denying (Enter denies)',
    'aria-keyshortcuts': 'Enter',
    maxlength: '2000',
  });
  const button = (label: string, testId: string, cls: string, glyph?: 'check' | 'close') =>
    el(
      'button',
      { class: `${cls}${glyph ? ' with-icon' : ''}`, type: 'button', 'data-testid': testId },
      ...(glyph ? [icon(glyph)] : []),
      label,
    );
  const allow = button('Allow', 'approve', 'primary', 'check');
  const always = button(`Always allow ${mcp.tool}`, 'approve-tool', 'secondary');
  const server = button(`Always allow ${mcp.server}`, 'approve-server', 'secondary');
  const deny = button('Deny', 'reject', 'secondary', 'close');
  const buttons = [allow, always, server, deny];
  const answer = (approved: boolean, remember?: 'tool' | 'server') => {
    if (node.contains(document.activeElement)) {
      node.setAttribute('tabindex', '-1');
      node.focus();
    }
    for (const b of buttons) b.disabled = true;
    h.answer(item.id, approved, approved ? undefined : reason.value.trim() || undefined, remember);
  };
  allow.addEventListener('click', () => answer(true));
  always.addEventListener('click', () => answer(true, 'tool'));
  server.addEventListener('click', () => answer(true, 'server'));
  deny.addEventListener('click', () => answer(false));
  reason.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' || e.isComposing) return;
    e.preventDefault();
    answer(false);
  });
  node.append(reason, el('div', { class: 'approval-actions wrap' }, ...buttons));
  return node;
}
