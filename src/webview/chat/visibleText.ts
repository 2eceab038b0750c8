/**
 * What an approval card shows must be what runs: control characters, bidirectional-text
 * controls and invisible characters become visible escapes (`⟨RLO U+202E⟩`), runs of blank
 * lines collapse into one visible marker (`⏎ ×60 blank lines`) so nothing can be pushed out
 * of sight, and long runs of spaces are shortened the same way. Pure (no DOM), so it is
 * unit-tested; the card renders the pieces as text.
 */

/** Why a character is escaped. */
export type EscapeCategory = 'control' | 'bidi' | 'invisible' | 'spaces';

/** A run of ordinary text, or one escaped character (or run of spaces) shown as a marker. */
export type Piece =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'escape'; readonly text: string; readonly category: EscapeCategory; readonly title: string };

/** One shown line: its pieces, or a marker standing for a run of blank lines. */
export type DisplayLine =
  | { readonly kind: 'line'; readonly pieces: readonly Piece[] }
  | { readonly kind: 'blank-run'; readonly count: number; readonly text: string };

/** How a text is shown, with what was escaped or collapsed, counted. */
export interface TextDisplay {
  readonly lines: readonly DisplayLine[];
  /** Lines of the original text (as the shell reads them). */
  readonly lineCount: number;
  /** Blank lines folded into `blank-run` markers. */
  readonly collapsedBlankLines: number;
  readonly counts: Readonly<Record<EscapeCategory, number>>;
  /** Sentences for the card's warning, empty when nothing is hidden or odd. */
  readonly warnings: readonly string[];
}

/** Runs of at least this many blank lines collapse into a marker. */
export const MIN_BLANK_RUN = 2;
/** Runs of at least this many spaces/tabs inside a line are shortened into a marker. */
export const MIN_SPACE_RUN = 16;

const BIDI: Readonly<Record<number, string>> = {
  0x061c: 'ALM',
  0x200e: 'LRM',
  0x200f: 'RLM',
  0x202a: 'LRE',
  0x202b: 'RLE',
  0x202c: 'PDF',
  0x202d: 'LRO',
  0x202e: 'RLO',
  0x2066: 'LRI',
  0x2067: 'RLI',
  0x2068: 'FSI',
  0x2069: 'PDI',
};
const CONTROL_NAMES: Readonly<Record<number, string>> = {
  0x00: 'NUL',
  0x07: 'BEL',
  0x08: 'BS',
  0x0b: 'VT',
  0x0c: 'FF',
  0x0d: 'CR',
  0x1b: 'ESC',
  0x7f: 'DEL',
  0x85: 'NEL',
};
const INVISIBLE: Readonly<Record<number, string>> = {
  0x00a0: 'NBSP',
  0x00ad: 'SHY',
  0x034f: 'CGJ',
  0x115f: 'HF',
  0x1160: 'HJF',
  0x1680: 'OGHAM SPACE',
  0x180e: 'MVS',
  0x200b: 'ZWSP',
  0x200c: 'ZWNJ',
  0x200d: 'ZWJ',
  0x2028: 'LSEP',
  0x2029: 'PSEP',
  0x202f: 'NNBSP',
  0x205f: 'MMSP',
  0x2060: 'WJ',
  0x2061: 'FA',
  0x2062: 'IT',
  0x2063: 'IS',
  0x2064: 'IP',
  0x3000: 'IDEOGRAPHIC SPACE',
  0x3164: 'HF',
  0xfeff: 'BOM',
  0xffa0: 'HWHF',
};

function hex(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The category and short name of a character that must be shown escaped, or undefined. */
export function escapeOf(cp: number): { category: Exclude<EscapeCategory, 'spaces'>; name: string } | undefined {
  if (cp === 0x09) return undefined; // a tab is shown as whitespace (long runs are shortened)
  const bidi = BIDI[cp];
  if (bidi) return { category: 'bidi', name: bidi };
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0xd800 && cp <= 0xdfff))
    return { category: 'control', name: CONTROL_NAMES[cp] ?? 'control' };
  const invisible =
    INVISIBLE[cp] ??
    (cp >= 0x2000 && cp <= 0x200a
      ? 'SPACE'
      : cp >= 0xfe00 && cp <= 0xfe0f
        ? 'VS'
        : cp >= 0xe0000 && cp <= 0xe007f
          ? 'TAG'
          : undefined);
  return invisible ? { category: 'invisible', name: invisible } : undefined;
}

/** How far a text is transformed beyond escaping characters (both on by default, for commands). */
export interface DisplayOptions {
  /** Shorten runs of MIN_SPACE_RUN or more spaces/tabs (off for code in a diff, where indentation is content). */
  readonly shortenSpaces?: boolean;
  /** Fold runs of MIN_BLANK_RUN or more blank lines into one marker. */
  readonly collapseBlankLines?: boolean;
}

/** One line (no `\n` in it) as pieces: ordinary text, escaped characters and (unless turned off) shortened space runs. */
export function escapeLine(line: string, opts: DisplayOptions = {}): Piece[] {
  const shorten = opts.shortenSpaces ?? true;
  const pieces: Piece[] = [];
  let text = '';
  const flush = () => {
    if (text) pieces.push({ kind: 'text', text });
    text = '';
  };
  const chars = [...line];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as string;
    if (shorten && (ch === ' ' || ch === '\t')) {
      let j = i;
      while (j < chars.length && (chars[j] === ' ' || chars[j] === '\t')) j++;
      if (j - i >= MIN_SPACE_RUN) {
        flush();
        pieces.push({ kind: 'escape', text: `␠×${j - i}`, category: 'spaces', title: `${j - i} spaces or tabs` });
        i = j - 1;
        continue;
      }
      text += chars.slice(i, j).join('');
      i = j - 1;
      continue;
    }
    // A lone surrogate is a single UTF-16 unit; every other character is one code point.
    const cp = ch.length === 1 ? ch.charCodeAt(0) : (ch.codePointAt(0) as number);
    const esc = escapeOf(cp);
    if (!esc) {
      text += ch;
      continue;
    }
    flush();
    pieces.push({
      kind: 'escape',
      text: `⟨${esc.name === 'control' ? hex(cp) : `${esc.name} ${hex(cp)}`}⟩`,
      category: esc.category,
      title: `${esc.category === 'bidi' ? 'Bidirectional-text control' : esc.category === 'control' ? 'Control character' : 'Invisible character'} ${hex(cp)}`,
    });
  }
  flush();
  return pieces;
}

/** The plain text of pieces (escapes as their visible markers): for labels and copying what is shown. */
export function piecesText(pieces: readonly Piece[]): string {
  return pieces.map((p) => p.text).join('');
}

/**
 * How a command (or any multi-line text) is shown whole: every line, escaped; runs of
 * MIN_BLANK_RUN or more blank lines (empty or only spaces/tabs) as one `⏎ ×N blank lines`
 * marker; with counts and the warnings the card must show.
 */
export function displayText(source: string, opts: DisplayOptions = {}): TextDisplay {
  const collapse = opts.collapseBlankLines ?? true;
  const raw = source.split('\n');
  const lines: DisplayLine[] = [];
  const counts: Record<EscapeCategory, number> = { control: 0, bidi: 0, invisible: 0, spaces: 0 };
  let collapsed = 0;
  for (let i = 0; i < raw.length; i++) {
    if (collapse && isBlank(raw[i] as string)) {
      let j = i;
      while (j < raw.length && isBlank(raw[j] as string)) j++;
      const n = j - i;
      if (n >= MIN_BLANK_RUN) {
        lines.push({ kind: 'blank-run', count: n, text: `⏎ ×${n} blank lines` });
        collapsed += n;
        i = j - 1;
        continue;
      }
    }
    const pieces = escapeLine(raw[i] as string, opts);
    for (const p of pieces) if (p.kind === 'escape') counts[p.category]++;
    lines.push({ kind: 'line', pieces });
  }
  return {
    lines,
    lineCount: raw.length,
    collapsedBlankLines: collapsed,
    counts,
    warnings: warningsOf(counts, collapsed),
  };
}

function isBlank(line: string): boolean {
  return /^[ \t]*$/.test(line);
}

function warningsOf(c: Readonly<Record<EscapeCategory, number>>, collapsed: number): string[] {
  const out: string[] = [];
  const n = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;
  if (c.bidi > 0)
    out.push(
      `${n(c.bidi, 'bidirectional-text control', 'bidirectional-text controls')} (shown as ⟨…⟩): they can make text look different from what it is.`,
    );
  if (c.control > 0)
    out.push(
      `${n(c.control, 'control character', 'control characters')} (shown as ⟨…⟩) that would otherwise be invisible here.`,
    );
  if (c.invisible > 0)
    out.push(
      `${n(c.invisible, 'invisible or look-alike space character', 'invisible or look-alike space characters')} (shown as ⟨…⟩).`,
    );
  if (collapsed > 0)
    out.push(`${n(collapsed, 'blank line', 'blank lines')} collapsed (⏎ ×N): the lines around them are all there is.`);
  if (c.spaces > 0) out.push(`${n(c.spaces, 'long run', 'long runs')} of spaces shortened (␠×N).`);
  return out;
}
