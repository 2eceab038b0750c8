import { el } from '../shared/dom';

/**
 * `pre` (a code block's, a diff's) in a frame that shades its right edge while its long lines
 * go on past it, so a line cut at a narrow side bar reads as "scroll for more" (chat.css: a
 * scroll-driven animation; no shade when nothing overflows, or once scrolled to the end).
 */
export function scrollFrame(pre: HTMLElement): HTMLElement {
  return el('div', { class: 'scroll-x-frame' }, pre);
}
