/** Creates an element with text and attributes; never parses HTML, so text is always inert. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return node;
}

/** `12 345` style grouping for token counts. */
export function formatTokens(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** A cost for people: `$0.0123`, or `—` when it is unknown (null). */
export function formatUsd(n: number | null): string {
  return n === null ? '—' : `$${n.toFixed(4)}`;
}

/** `1 round`, `3 rounds`. */
export function countOf(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
