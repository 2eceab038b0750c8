import { el } from './dom';

/**
 * The codicons the webviews use. The font and its classes come from `@vscode/codicons`
 * (dist/webview/codicon.css); a unit test checks every name here against that stylesheet.
 */
export const ICON_NAMES = [
  'check',
  'checklist',
  'chevron-right',
  'clear-all',
  'circle-large-outline',
  'close',
  'copy',
  'discard',
  'debug-continue',
  'edit',
  'history',
  'key',
  'pass-filled',
  'pin',
  'pinned',
  'play-circle',
  'plug',
  'refresh',
  'warning',
] as const;

/** One of the codicons in ICON_NAMES. */
export type IconName = (typeof ICON_NAMES)[number];

/**
 * A codicon as a decorative span (`aria-hidden`): the control around it carries the
 * accessible name (aria-label or visible text), so screen readers never read the glyph.
 */
export function icon(name: IconName): HTMLElement {
  return el('span', { class: `codicon codicon-${name}`, 'aria-hidden': 'true' });
}
