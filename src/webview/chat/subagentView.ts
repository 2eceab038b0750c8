/**
 * A task call's subagent on its card: on the collapsed row, its state and what it did and
 * cost so far (live while it runs); opened, its model, last tool, compactions and a link to
 * its transcript (the child session, read-only).
 */
import type { SubagentCard } from '../../protocol/chatItems';
import { countOf, el, formatTokens, formatUsd } from '../shared/dom';

/** The row's figures, on their own line: `3 rounds · 7 tools · 21.4k tokens · $0.0123`, with the whole story in its title. */
export function subagentFigures(card: SubagentCard): HTMLElement {
  const running = card.state === 'running';
  return el(
    'span',
    {
      class: `muted subagent-figures ${card.state}`,
      'data-testid': 'subagent-figures',
      title: `Subagent on ${card.model}: ${countOf(card.requests, 'request')}, ${formatTokens(card.tokens)} tokens, ${formatUsd(card.costUsd)}, billed to this turn (budget panel: Subagents row).${running ? ' Still running.' : ''}`,
    },
    `${countOf(card.rounds, 'round')} · ${countOf(card.toolCalls, 'tool')} · ${formatTokens(card.tokens)} tokens · ${formatUsd(card.costUsd)}`,
  );
}

/** The card's subagent section: model, last tool, compactions, and Open transcript. */
export function subagentBody(card: SubagentCard, open: (sessionId: string) => void): HTMLElement {
  const link = el(
    'button',
    {
      class: 'link',
      type: 'button',
      'data-testid': 'subagent-open',
      title: "The subagent's own session, read-only: every request, tool call and result it made",
    },
    'Open transcript',
  );
  link.addEventListener('click', () => open(card.sessionId));
  const state = {
    running: 'running',
    done: 'done',
    failed: 'failed (its error is the result)',
    stopped: 'stopped',
  }[card.state];
  return el(
    'div',
    { class: 'subagent-body' },
    el('div', { class: 'label' }, 'Subagent'),
    el(
      'p',
      { class: 'muted' },
      `${card.model} · ${state}`,
      card.lastTool ? ` · last: ${card.lastTool}` : '',
      card.compactions > 0 ? ` · compacted its context ${countOf(card.compactions, 'time')}` : '',
      ' · ',
      link,
    ),
  );
}
