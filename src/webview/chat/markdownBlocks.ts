import type { Token } from 'markdown-it';
import { LANG_NAME, md, markdownEnv, type MarkdownReferences } from './markdownParser';

/**
 * Splits a streamed answer's Markdown into settled blocks and a live tail, so the chat renders
 * each settled block once and re-renders only the tail as text arrives. Pure (markdown-it, no
 * DOM): the unit tests prove that the settled blocks and the tail, rendered each on its own,
 * render exactly what the whole text renders, and that a settled block never changes.
 *
 * A block settles when it is a top-level block of the text's complete lines (a partial last
 * line can still change what it is: `#` is a heading, `#x` a paragraph line) and another
 * top-level block follows it: later lines only ever extend the last block, so the ones before
 * it are final (an open ``` fence, a list, a table are the last block until something after
 * them starts). Two things reach across blocks, and both are held back:
 * - a link reference definition (`[x]: /url`) may come later and turn an earlier `[x]` into a
 *   link: a block whose text keeps a bracket (`[x]`, not a link already) does not settle, and
 *   so neither does anything after it;
 * - a definition's own extent (a title on the next line): a block that defines references
 *   settles only when a blank line ends it. Definitions carry on to the blocks after them.
 */

/** A settled block: its source and the link definitions of the text before it. */
export interface SettledBlock {
  readonly source: string;
  readonly references: MarkdownReferences;
}

/** A fenced code block still open at the end of the text: shown as plain code until it closes. */
export interface OpenFence {
  /** The fence's language as the final render names it ('' when none or not a safe name). */
  readonly lang: string;
  /** The code so far. */
  readonly code: string;
}

/** What one push changed. */
export interface SplitUpdate {
  /** Blocks settled by this push, in order: each is rendered once and follows the ones before. */
  readonly settled: readonly SettledBlock[];
  /** The text after every settled block (rendered anew each time). */
  readonly tail: string;
  /** The link definitions of the settled text, for rendering the tail. */
  readonly references: MarkdownReferences;
  /** Set when the tail is one fenced code block whose closing fence has not arrived. */
  readonly openFence?: OpenFence;
}

/** A fence's language name as the final render keeps it (the sanitiser drops other class names). */
const SAFE_LANG = new RegExp(`^${LANG_NAME.source}$`);

/** Splits streamed Markdown; push each delta in order. */
export class MarkdownBlockSplitter {
  private all = '';
  private settledEnd = 0;
  private references: MarkdownReferences = {};

  /** The whole text pushed so far. */
  get text(): string {
    return this.all;
  }

  /** Appends `delta` and returns the blocks it settled and the tail. */
  push(delta: string): SplitUpdate {
    this.all += delta;
    const settled = this.settle();
    const tail = this.all.slice(this.settledEnd);
    const openFence = openFenceOf(tail, this.references);
    return { settled, tail, references: this.references, ...(openFence ? { openFence } : {}) };
  }

  private settle(): SettledBlock[] {
    const pending = this.all.slice(this.settledEnd);
    const complete = pending.slice(0, completeLength(pending));
    if (!complete) return [];
    const tokens = md.parse(complete, markdownEnv(this.references));
    const blocks = topLevelBlocks(tokens);
    const lines = lineOffsets(complete);
    const out: SettledBlock[] = [];
    let from = 0;
    for (let i = 0; i + 1 < blocks.length; i++) {
      const end = lines[(blocks[i + 1] as TopBlock).line] ?? complete.length;
      const source = complete.slice(from, end);
      // Read on its own, with only the definitions before it: a later one must not be what resolves its links.
      const env = markdownEnv(this.references);
      if (keepsBracket(md.parse(source, env))) break;
      const defined = env.references !== undefined && Object.keys(env.references).length > countOf(this.references);
      if (defined && !endsWithBlankLine(source)) break;
      out.push({ source, references: this.references });
      if (defined && env.references) this.references = env.references;
      from = end;
    }
    this.settledEnd += from;
    return out;
  }
}

interface TopBlock {
  /** Its first line. */
  readonly line: number;
}

/** The top-level blocks of a parse: the line each starts on. */
function topLevelBlocks(tokens: readonly Token[]): TopBlock[] {
  return tokens.flatMap((t) => (t.level === 0 && t.nesting >= 0 && t.map ? [{ line: t.map[0] }] : []));
}

/** The length of `text`'s complete lines: up to its last line break (a final `\r` may yet be `\r\n`). */
function completeLength(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text[i];
    if (c === '\n' || (c === '\r' && i < text.length - 1)) return i + 1;
  }
  return 0;
}

/** Where each line of `text` starts, with line breaks as markdown-it reads them (`\r\n`, `\r`, `\n`). */
function lineOffsets(text: string): number[] {
  const out = [0];
  for (const m of text.matchAll(/\r\n?|\n/g)) out.push(m.index + m[0].length);
  return out;
}

function endsWithBlankLine(source: string): boolean {
  const lines = source.split(/\r\n?|\n/);
  // The source ends with a line break: its last element is '', the line before it is the last line.
  return lines.length >= 2 && (lines[lines.length - 2] ?? '').trim() === '';
}

function countOf(references: MarkdownReferences): number {
  return Object.keys(references).length;
}

/**
 * Whether a block's text keeps a bracket a later link definition could turn into a link: any
 * `]` left in its text (a whitespace-only `[ ]` can never be a label, so a task box is fine).
 */
function keepsBracket(tokens: readonly Token[]): boolean {
  return tokens.some((t) => t.type === 'inline' && childrenKeepBracket(t.children ?? []));
}

function childrenKeepBracket(children: readonly Token[]): boolean {
  return children.some(
    (c) =>
      ((c.type === 'text' || c.type === 'text_special') && c.content.replace(/\[\s*\]/g, '').includes(']')) ||
      childrenKeepBracket(c.children ?? []),
  );
}

/** The tail's open fence, when the tail is exactly one fenced code block not closed yet. */
function openFenceOf(tail: string, references: MarkdownReferences): OpenFence | undefined {
  if (!/^ {0,3}(?:```|~~~)/m.test(tail)) return undefined;
  const top = md.parse(tail, markdownEnv(references)).filter((t) => t.level === 0);
  const fence = top[0];
  if (top.length !== 1 || fence?.type !== 'fence' || !fence.map) return undefined;
  const lines = tail.split(/\r\n?|\n/);
  const last = fence.map[1] - 1;
  const closing = new RegExp(`^ {0,3}${fence.markup[0] === '~' ? '~' : '`'}{${fence.markup.length},}[ \\t]*$`);
  if (last > fence.map[0] && closing.test(lines[last] ?? '')) return undefined;
  return { lang: fenceLang(fence.info), code: fence.content };
}

/** A fence's info string → the language the final render shows (as markdown-it names it, if safe). */
export function fenceLang(info: string): string {
  const name = md.utils.unescapeAll(info).trim().split(/\s+/)[0] ?? '';
  return SAFE_LANG.test(name) ? name : '';
}
