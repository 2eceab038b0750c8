/**
 * Neutralises our XML-like tags (`<system-reminder>`, `<ide_selection>`, …) inside untrusted
 * text, so that content can never open, close or fake one of them — including lookalikes a
 * model would still read as the tag: zero-width and other invisible characters inside it
 * (`<\u200B/ide_selection>`), NUL and control characters, combining marks, fullwidth or
 * other confusable brackets, slashes, dashes and letters (`＜/ide_selection＞`, `‹…›`, `〈…〉`).
 *
 * Matching runs, from each character that reads as `<`, on a *view* of what follows it as a
 * reader sees it (ignorables dropped, confusables mapped to ASCII, lowercased); the original
 * text is changed only where a tag was found: its opening bracket, whatever it looked like,
 * becomes `&lt;`. Everything else is kept as it was. Pure; linear in the text's length.
 */

/** Characters that render as nothing (or almost) and that a reader skips: dropped from the view. */
const IGNORABLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{M}\u0000-\u0008\u000E-\u001F\u007F-\u009F]/u;

/** Lookalikes that NFKC leaves alone, mapped to the ASCII character a reader takes them for. */
const CONFUSABLES: Readonly<Record<string, string>> = {
  // < and >
  '\u2039': '<',
  '\u203A': '>', // ‹ ›
  '\u3008': '<',
  '\u3009': '>', // 〈 〉 (U+2329/U+232A normalise to these)
  '\u27E8': '<',
  '\u27E9': '>', // ⟨ ⟩
  '\u276C': '<',
  '\u276D': '>', // ❬ ❭
  '\u276E': '<',
  '\u276F': '>', // ❮ ❯
  '\u2770': '<',
  '\u2771': '>', // ❰ ❱
  '\u02C2': '<',
  '\u02C3': '>', // ˂ ˃
  '\u1438': '<',
  '\u1433': '>', // ᐸ ᐳ
  '\u226E': '<',
  '\u226F': '>', // ≮ ≯ (a bracket under a combining stroke)
  // /
  '\u2215': '/',
  '\u2044': '/',
  '\u29F8': '/',
  '\u2571': '/',
  '\u27CB': '/', // ∕ ⁄ ⧸ ╱ ⟋
  // - and _
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2212': '-',
  '\u2043': '-', // ‐ ‑ ‒ – — ― − ⁃
  '\u02CD': '_',
  '\u2017': '_', // ˍ ‗
  // Latin letters' Cyrillic and Greek twins (lowercase; the view is lowercased first)
  '\u0430': 'a',
  '\u0441': 'c',
  '\u0435': 'e',
  '\u0456': 'i',
  '\u0458': 'j',
  '\u043E': 'o',
  '\u0440': 'p',
  '\u0455': 's',
  '\u0445': 'x',
  '\u0443': 'y',
  '\u0501': 'd',
  '\u04BB': 'h',
  '\u04CF': 'l',
  '\u051B': 'q',
  '\u051D': 'w',
  '\u0475': 'v',
  '\u03BF': 'o',
  '\u03B1': 'a',
  '\u03B9': 'i',
  '\u03C1': 'p',
  '\u03BD': 'v',
  '\u03C5': 'u',
  '\u03BA': 'k',
  '\u0131': 'i',
  '\u0269': 'i',
  // Cyrillic letters that read as Latin ones in lowercase or small-capital shapes
  '\u043C': 'm',
  '\u0442': 't',
  '\u043A': 'k',
  '\u043D': 'h',
  '\u0432': 'b',
  '\u0433': 'r',
  '\u043F': 'n',
  '\u0438': 'u',
  '\u044C': 'b',
  '\u0491': 'r',
  // Greek
  '\u03C4': 't',
  '\u03B7': 'n',
  '\u03F2': 'c',
  '\u03C7': 'x',
  '\u03C9': 'w',
  '\u03B5': 'e',
  '\u03B3': 'y',
  '\u03BC': 'u',
  // Armenian
  '\u0585': 'o',
  '\u057D': 'u',
  '\u0581': 'g',
  '\u0570': 'h',
  '\u0578': 'n',
  // Latin small capitals and other letter forms NFKC keeps (ꜱ, ᴇ, ʀ …)
  '\uA731': 's',
  '\u1D00': 'a',
  '\u0299': 'b',
  '\u1D04': 'c',
  '\u1D05': 'd',
  '\u1D07': 'e',
  '\uA730': 'f',
  '\u0262': 'g',
  '\u0261': 'g',
  '\u029C': 'h',
  '\u026A': 'i',
  '\u1D0A': 'j',
  '\u1D0B': 'k',
  '\u029F': 'l',
  '\u1D0D': 'm',
  '\u0274': 'n',
  '\u1D0F': 'o',
  '\u1D18': 'p',
  '\u0280': 'r',
  '\u1D1B': 't',
  '\u1D1C': 'u',
  '\u1D20': 'v',
  '\u1D21': 'w',
  '\u028F': 'y',
  '\u1D22': 'z',
};

/** Characters whose view is `<` (a test checks this against every code point). */
const OPENERS = /[<\uFF1C\uFE64\uFE3F\u2039\u3008\u2329\u27E8\u276C\u276E\u2770\u02C2\u1438\u226E]/;
const OPENERS_ALL = new RegExp(OPENERS.source, 'g');

/** View characters that can continue a tag after its `<`: whitespace, `/` and name characters. */
const TAG_BODY = /^[\s/a-z0-9_-]+$/;

/**
 * How far the view of a tag is read after its `<`, whitespace runs counted once: beyond any of
 * our tags (the longest, a hook tag, has at most 64 characters plus `<`, `/` and two spaces).
 */
const VIEW_CAP = 160;

/** Whether `ch` (one code point) reads as `<`: only these can open one of our tags. */
export function isOpener(ch: string): boolean {
  return OPENERS.test(ch);
}

/** Memo of {@link viewOfChar}, bounded (cleared when full). */
const viewCache = new Map<string, string>();
const VIEW_CACHE_MAX = 4096;

/**
 * What one character (a code point) reads as: '' when ignorable; otherwise NFKC-normalised,
 * lowercased, stripped of combining marks and mapped through the confusables.
 */
export function viewOfChar(ch: string): string {
  const code = ch.charCodeAt(0);
  if (ch.length === 1 && code >= 0x20 && code < 0x7f) return ch.toLowerCase();
  const known = viewCache.get(ch);
  if (known !== undefined) return known;
  let out = '';
  if (!IGNORABLE.test(ch)) {
    const direct = CONFUSABLES[ch];
    if (direct !== undefined) out = direct;
    else for (const c of ch.normalize('NFKC').toLowerCase()) if (!IGNORABLE.test(c)) out += CONFUSABLES[c] ?? c;
  }
  if (viewCache.size >= VIEW_CACHE_MAX) viewCache.clear();
  viewCache.set(ch, out);
  return out;
}

/**
 * The view of `content` from the opener at `start`: `<`, then what follows as a reader sees it
 * (ignorables dropped, whitespace runs as one space), up to and including the first character
 * that cannot continue a tag, or {@link VIEW_CAP} characters. A scan never passes the next
 * opener, so all scans together are linear in the length of `content`.
 */
function viewAfter(content: string, start: number): string {
  let view = '<';
  for (let i = start + 1; i < content.length && view.length < VIEW_CAP;) {
    const width = (content.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
    const seen = viewOfChar(content.slice(i, i + width));
    i += width;
    if (seen === '') continue;
    if (/^\s+$/.test(seen)) {
      if (!view.endsWith(' ')) view += ' ';
      continue;
    }
    view += seen;
    if (!TAG_BODY.test(seen)) break;
  }
  return view;
}

/**
 * Neutralises every opening or closing tag whose name matches `namePattern` (a RegExp
 * source over lowercase names, at most 124 characters long) inside `content`, by turning its
 * opening bracket — `<` or a lookalike — into `&lt;`. Matching is on what a reader sees:
 * case-, whitespace-, ignorable- and confusable-insensitive (`< / IDE_SELECTION >`,
 * `<\u200B/ide_selection>`, `＜/ide_selection＞`). Everything else is kept as it was.
 */
export function neutralizeTagPattern(content: string, namePattern: string): string {
  if (!OPENERS.test(content)) return content;
  const tag = new RegExp(`^< ?\\/? ?(?:${namePattern})(?=[ >/]|$)`);
  let out = '';
  let last = 0;
  for (const m of content.matchAll(OPENERS_ALL)) {
    if (!tag.test(viewAfter(content, m.index))) continue;
    out += `${content.slice(last, m.index)}&lt;`;
    last = m.index + m[0].length;
  }
  return last === 0 ? content : out + content.slice(last);
}

/**
 * A RegExp source matching the given tag names (lowercased, escaped) on a view, with their
 * separators loose: where a name has `-` or `_`, any run of `-`, `_` and spaces — or none —
 * matches, so `<system_reminder>`, `<system reminder>` and `<systemreminder>` read as
 * `<system-reminder>` (a model would take them for it).
 */
export function namesPattern(tags: readonly string[]): string {
  return tags
    .map((t) =>
      t
        .toLowerCase()
        .split(/[-_]+/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'))
        .join('[-_ ]*'),
    )
    .join('|');
}
