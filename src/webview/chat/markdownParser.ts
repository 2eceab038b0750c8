import MarkdownIt from 'markdown-it';

/**
 * The chat's one Markdown parser (markdown-it), shared by the final render (markdown.ts) and
 * the streaming split (markdownBlocks.ts), so both read the text the same way. Raw HTML is off
 * (any `<tag>` stays text); only explicit http(s) URLs are linkified; table alignment becomes a
 * class (styles are sanitised away). Needs no DOM: the unit tests use it as the reference render.
 */
export const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
// Only explicit http(s) URLs become links: bare `README.md` or `a.io` must stay text.
md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
md.linkify.add('//', null).add('mailto:', null).add('ftp:', null);

// Table alignment arrives as `style="text-align:…"`; styles are forbidden, so turn it into a class.
md.core.ruler.push('cp_table_align', (state) => {
  for (const token of state.tokens) {
    if (token.type !== 'th_open' && token.type !== 'td_open') continue;
    const style = token.attrGet('style');
    if (style === null) continue;
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
    const align = /text-align:\s*(left|center|right)/.exec(String(style))?.[1];
    if (align) token.attrJoin('class', `md-align-${align}`);
  }
  return true;
});

/** A code fence's language name the sanitiser keeps (as `language-<name>`); others are dropped. */
export const LANG_NAME = /[\w+#.-]{1,40}/;

/** Link reference definitions by normalised label, as markdown-it keeps them in its `env`. */
export type MarkdownReferences = Record<string, { href: string; title: string }>;

/**
 * The parse environment for a piece of a longer text: the reference definitions found before
 * it (copied, so parsing the piece never changes `references`). None: a whole text on its own.
 */
export function markdownEnv(references?: MarkdownReferences): { references?: MarkdownReferences } {
  return references && Object.keys(references).length > 0 ? { references: { ...references } } : {};
}
