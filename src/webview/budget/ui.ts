import { el, formatUsd } from '../shared/dom';

/** A card of the panel: a heading and its content, with a test id. */
export function section(title: string, testid: string, ...children: Array<Node | string>): HTMLElement {
  return el('section', { class: 'card', 'data-testid': testid }, el('h2', {}, title), ...children);
}

/** A table with a header row; cells are text or nodes (never parsed as HTML). */
export function table(
  head: string[],
  rows: Array<Array<string | Node>>,
  attrs: Record<string, string> = {},
): HTMLTableElement {
  return el(
    'table',
    attrs,
    el('thead', {}, el('tr', {}, ...head.map((h) => el('th', {}, h)))),
    el('tbody', {}, ...rows.map((r) => el('tr', {}, ...r.map((c) => el('td', {}, c))))),
  );
}

/** A share as `12.3 %`, or `–` when the whole is 0. */
export const pct = (part: number, whole: number): string =>
  whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : '–';

/** A cost, or `—` when the model's price is unknown. */
export const usd = formatUsd;
