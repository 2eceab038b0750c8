/**
 * The agent's plan as a compact checklist above the composer: a collapsible header ("Plan ·
 * 3 of 7 done", the step in progress while collapsed, Clear) over the steps, completed ones
 * checked, the one in progress highlighted. Shown while there is a plan; words as text only.
 */
import type { PlanStepView } from '../../protocol/plan';
import { el } from '../shared/dom';
import { icon, type IconName } from '../shared/icons';
import { statusWords, stepInProgress } from './planText';

const STATUS_ICONS: Readonly<Record<PlanStepView['status'], IconName>> = {
  completed: 'pass-filled',
  in_progress: 'play-circle',
  pending: 'circle-large-outline',
};

/**
 * The checklist; `clear` is called when the user clears the plan. It starts folded when
 * `folded` says so, and `onFold` hears each fold or unfold (the view state keeps it across reloads).
 */
export class PlanView {
  readonly root: HTMLDetailsElement;
  private readonly count = el('span', { class: 'plan-count' });
  private readonly current = el('span', { class: 'plan-current' });
  private readonly list = el('ol', { class: 'plan-steps' });

  constructor(clear: () => void, folded = false, onFold: (folded: boolean) => void = () => undefined) {
    const clearButton = el(
      'button',
      { class: 'icon-button plan-clear', type: 'button', title: 'Clear the plan', 'aria-label': 'Clear the plan' },
      icon('clear-all'),
    );
    clearButton.addEventListener('click', (e) => {
      // A click on the button must not toggle the details it sits in.
      e.preventDefault();
      clear();
    });
    const summary = el(
      'summary',
      { class: 'plan-summary', title: "Claude's plan for this task (update_plan)" },
      el('span', { class: 'plan-chevron' }, icon('chevron-right')),
      icon('checklist'),
      el('span', { class: 'plan-title' }, 'Plan'),
      this.count,
      this.current,
      clearButton,
    );
    this.root = el('details', { class: 'plan', ...(folded ? {} : { open: '' }) }, summary, this.list);
    this.root.hidden = true;
    this.root.addEventListener('toggle', () => onFold(!this.root.open));
  }

  /**
   * Shows `steps` with the host's `progress` words (undefined steps: no plan, the checklist
   * hides). The collapsed or open state stays as the user left it.
   */
  show(steps: readonly PlanStepView[] | undefined, progress = ''): void {
    if (!steps || steps.length === 0) {
      this.root.hidden = true;
      this.list.replaceChildren();
      return;
    }
    this.root.hidden = false;
    this.count.textContent = progress;
    const now = stepInProgress(steps);
    this.current.textContent = now ? now.step : '';
    this.current.title = now ? now.step : '';
    this.list.replaceChildren(...steps.map(stepItem));
  }
}

function stepItem(s: PlanStepView): HTMLElement {
  const words = el('span', { class: 'plan-step-text' }, s.step);
  const body = el('div', { class: 'plan-step-body' }, words);
  if (s.note) body.append(el('div', { class: 'plan-note' }, s.note));
  const item = el(
    'li',
    { class: `plan-step ${s.status.replace('_', '-')}`, 'aria-label': `${s.step}: ${statusWords(s.status)}` },
    icon(STATUS_ICONS[s.status]),
    body,
  );
  if (s.status === 'in_progress') item.setAttribute('aria-current', 'step');
  return item;
}
