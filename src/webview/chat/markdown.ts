import DOMPurify from 'dompurify';
import { isAllowedLinkHref } from '../../protocol/chat';
import { el } from '../shared/dom';
import { icon } from '../shared/icons';
import { LANG_NAME, md, markdownEnv, type MarkdownReferences } from './markdownParser';
import { scrollFrame } from './scrollFrame';

/**
 * Renders model output as Markdown in the chat webview, safely: markdown-it with raw HTML
 * off (any `<tag>` in the text stays text), then DOMPurify with a short allow-list, then
 * post-processing on DOM nodes (never on HTML strings). Links never navigate the webview:
 * a click is turned into an `openLink` request the host validates again. Images survive
 * only as `data:image/…;base64` (the CSP blocks remote images too — defence in depth).
 */

/** What rendered Markdown may ask of the host. */
export interface MarkdownActions {
  /** Open an (already validated) link: http(s) or a workspace-relative path. */
  openLink(href: string): void;
  /** Copy text through the host when the webview's clipboard is not available. */
  copy(text: string): void;
}

const ALLOWED_TAGS = [
  'a',
  'b',
  'blockquote',
  'br',
  'code',
  'del',
  'em',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'i',
  'img',
  'kbd',
  'li',
  'ol',
  'p',
  'pre',
  's',
  'span',
  'strong',
  'sub',
  'sup',
  'table',
  'tbody',
  'td',
  'th',
  'thead',
  'tr',
  'ul',
];
const ALLOWED_ATTR = ['alt', 'class', 'href', 'src', 'start', 'title'];
const FORBID_TAGS = [
  'style',
  'script',
  'iframe',
  'frame',
  'object',
  'embed',
  'form',
  'input',
  'button',
  'textarea',
  'select',
  'svg',
  'math',
  'link',
  'meta',
  'base',
  'template',
];
const DATA_IMAGE = /^data:image\/(?:png|gif|jpeg|webp);base64,[a-z0-9+/=\s]+$/i;
const SAFE_CLASS = new RegExp(`^(?:language-${LANG_NAME.source}|md-align-(?:left|center|right))$`);

const purifier = DOMPurify(window);
purifier.addHook('uponSanitizeAttribute', (_node, data) => {
  if (/^on/i.test(data.attrName)) data.keepAttr = false;
});
purifier.addHook('afterSanitizeAttributes', (node) => {
  if (!(node instanceof Element)) return;
  const cls = node.getAttribute('class');
  if (cls !== null) {
    const kept = cls.split(/\s+/).filter((c) => SAFE_CLASS.test(c));
    if (kept.length) node.setAttribute('class', kept.join(' '));
    else node.removeAttribute('class');
  }
  if (node.tagName === 'IMG') {
    const src = node.getAttribute('src');
    if (src !== null && !DATA_IMAGE.test(src)) {
      node.removeAttribute('src');
      node.setAttribute('data-blocked-src', 'remote');
      node.setAttribute('title', `Image not loaded (only inline data: images are shown): ${src.slice(0, 200)}`);
    }
  }
  if (node.tagName === 'A') {
    const href = node.getAttribute('href');
    if (href !== null && !isAllowedLinkHref(href)) node.removeAttribute('href');
    else if (href !== null) node.setAttribute('title', href);
  }
});

/**
 * Parses and sanitises Markdown into inert DOM (no code-block chrome yet). `references`: the
 * link definitions of the text before this piece (a settled block of a streamed answer).
 */
export function sanitizeMarkdown(text: string, references?: MarkdownReferences): DocumentFragment {
  const html = md.render(text, markdownEnv(references));
  return purifier.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    FORBID_TAGS,
    FORBID_ATTR: ['style'],
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOW_UNKNOWN_PROTOCOLS: false,
    // http(s), or no scheme at all (a relative path); data: images are let through for <img> only, then checked above.
    ALLOWED_URI_REGEXP: /^(?:https?:|[^a-z]|[a-z0-9.+-]+(?:[^a-z0-9.+:-]|$))/i,
    RETURN_DOM_FRAGMENT: true,
  });
}

/**
 * Renders Markdown to a sanitised fragment with code-block headers (language, Copy).
 * `references`: the link definitions of the text before this piece (see sanitizeMarkdown).
 */
export function renderMarkdown(
  text: string,
  actions: MarkdownActions,
  references?: MarkdownReferences,
): DocumentFragment {
  const fragment = sanitizeMarkdown(text, references);
  for (const code of Array.from(fragment.querySelectorAll('pre > code'))) {
    const pre = code.parentElement as HTMLElement;
    const lang = /(?:^|\s)language-([\w+#.-]+)/.exec(code.getAttribute('class') ?? '')?.[1] ?? '';
    highlight(code, code.textContent ?? '', lang);
    const block = codeBlock(lang, actions);
    pre.replaceWith(block);
    block.append(scrollFrame(pre));
  }
  for (const table of Array.from(fragment.querySelectorAll('table'))) {
    const wrap = el('div', { class: 'table-wrap' });
    table.replaceWith(wrap);
    wrap.append(table);
  }
  return fragment;
}

/**
 * A code block's frame: its header (the language, and Copy, which copies the block's text as it
 * is when clicked); the caller appends the `<pre>` in a `scrollFrame`. Used by the streamed
 * answer's open fence too.
 */
export function codeBlock(lang: string, actions: MarkdownActions): HTMLElement {
  const copy = el(
    'button',
    { class: 'code-copy with-icon', type: 'button', title: 'Copy code', 'aria-label': 'Copy code' },
    icon('copy'),
    'Copy',
  );
  const block = el(
    'div',
    { class: 'code-block', 'data-lang': lang || 'text' },
    el('div', { class: 'code-header' }, el('span', { class: 'code-lang' }, lang || 'text'), copy),
  );
  // copyText cannot reject: a refused clipboard falls back to the host's copy.
  copy.addEventListener('click', () => void copyText(block.querySelector('pre')?.textContent ?? '', copy, actions));
  return block;
}

async function copyText(text: string, button: HTMLButtonElement, actions: MarkdownActions): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    actions.copy(text);
  }
  button.replaceChildren(icon('check'), 'Copied');
  setTimeout(() => button.replaceChildren(icon('copy'), 'Copy'), 1500);
}

/**
 * Makes links inside `root` open through the host: the webview itself never navigates.
 * One delegated listener each for click and middle-click.
 */
export function routeLinks(root: HTMLElement, actions: MarkdownActions): void {
  const handle = (event: MouseEvent) => {
    const target = event.target instanceof Element ? event.target.closest('a') : null;
    if (!target || !root.contains(target)) return;
    // VS Code's webview shell also listens for link clicks (on the window) and would open
    // the resolved href itself: stop it here so the only path is our validated request.
    event.preventDefault();
    event.stopPropagation();
    if (event.type === 'auxclick' && event.button !== 1) return;
    const href = target.getAttribute('href');
    if (href !== null && isAllowedLinkHref(href)) actions.openLink(href);
  };
  root.addEventListener('click', handle);
  root.addEventListener('auxclick', handle);
}

// ---------- a tiny, DOM-only syntax colouring ----------

type Family = 'c' | 'py' | 'sh' | 'json';
const FAMILIES: Record<string, Family> = {
  ts: 'c',
  tsx: 'c',
  typescript: 'c',
  js: 'c',
  jsx: 'c',
  javascript: 'c',
  mjs: 'c',
  cjs: 'c',
  java: 'c',
  c: 'c',
  cpp: 'c',
  'c++': 'c',
  h: 'c',
  cs: 'c',
  csharp: 'c',
  go: 'c',
  rust: 'c',
  rs: 'c',
  kotlin: 'c',
  swift: 'c',
  php: 'c',
  css: 'c',
  scss: 'c',
  py: 'py',
  python: 'py',
  rb: 'py',
  ruby: 'py',
  yaml: 'py',
  yml: 'py',
  toml: 'py',
  sh: 'sh',
  bash: 'sh',
  shell: 'sh',
  zsh: 'sh',
  console: 'sh',
  json: 'json',
  jsonc: 'json',
};
const KEYWORDS: Record<Family, Set<string>> = {
  c: new Set(
    'abstract as async await break case catch class const continue default delete do else enum export extends false final finally fn for from func function go if impl implements import in instanceof interface let match mod mut new null nil package private protected public readonly return self static struct super switch this throw true try type typeof undefined use var void while yield'.split(
      ' ',
    ),
  ),
  py: new Set(
    'and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield end module require'.split(
      ' ',
    ),
  ),
  sh: new Set(
    'if then else elif fi for while do done case esac in function return export local echo cd set'.split(' '),
  ),
  json: new Set(['true', 'false', 'null']),
};
const PATTERNS: Record<Family, RegExp> = {
  c: /(\/\/[^\n]*|\/\*[\s\S]*?\*\/)|("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)|(\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?\b|\b0x[\da-f]+\b)|([A-Za-z_$][\w$]*)/gi,
  py: /(#[^\n]*)|("""[\s\S]*?"""|'''[\s\S]*?'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|(\b\d[\d_]*(?:\.\d+)?\b)|([A-Za-z_][\w]*)/g,
  sh: /(#[^\n]*)|("(?:[^"\\]|\\.)*"|'[^']*')|(\b\d+\b)|([A-Za-z_][\w-]*)/g,
  json: /()("(?:[^"\\\n]|\\.)*")|(-?\b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b)|([A-Za-z_]\w*)/gi,
};
const MAX_HIGHLIGHT = 50_000;

/** Replaces `code`'s text with spans coloured by token kind (text nodes only, so still inert). */
function highlight(code: Element, source: string, lang: string): void {
  const family = FAMILIES[lang.toLowerCase()];
  if (!family || source.length > MAX_HIGHLIGHT) return;
  const pattern = new RegExp(PATTERNS[family].source, PATTERNS[family].flags);
  const keywords = KEYWORDS[family];
  const out: Node[] = [];
  let last = 0;
  for (let m = pattern.exec(source); m; m = pattern.exec(source)) {
    if (m[0] === '') {
      pattern.lastIndex++;
      continue;
    }
    const kind = m[1]
      ? 'comment'
      : m[2]
        ? 'string'
        : m[3]
          ? 'number'
          : m[4] && keywords.has(m[4])
            ? 'keyword'
            : undefined;
    if (!kind) continue;
    if (m.index > last) out.push(document.createTextNode(source.slice(last, m.index)));
    out.push(el('span', { class: `tok-${kind}` }, m[0]));
    last = m.index + m[0].length;
  }
  if (last < source.length) out.push(document.createTextNode(source.slice(last)));
  code.replaceChildren(...out);
}
