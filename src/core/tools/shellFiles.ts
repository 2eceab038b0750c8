/**
 * The files a shell command read or wrote, as far as its text says so: agents read files with
 * `cat`, `sed -n`, `head`, `grep -n … file` as often as with a read tool, and the file index
 * (fileIndex.ts) names those files too. Conservative by design: only simple command lines are
 * understood (segments joined by `&&`, `||`, `;`, `|` or newlines; a leading `cd DIR`; the
 * line opening a heredoc, without its body), an operand holding a variable, a glob, a
 * substitution or a brace is never taken, and anything not understood names no file. Besides
 * the readers and searches: `>`/`>>` and `tee` write, `sed -i` edits, `cp` and `install` read and
 * write, `mv` and `ln` write their destination, `dd of=` and `truncate` write. Pure.
 */

/** A file a shell command touched: the path (joined to a `cd` before it) and whether it was written. */
export interface ShellFileTouch {
  readonly path: string;
  readonly edited: boolean;
}

/** Commands whose operands are all files they read (after their options). */
const READERS = new Set(['cat', 'nl', 'less', 'more', 'bat', 'batcat', 'head', 'tail', 'wc', 'tac']);
/** Commands whose first operand is a pattern or script (unless an option gives it) and the rest files. */
const PATTERN_FIRST = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'sed', 'awk']);
const GREP_VALUES = ['-e', '-f', '-A', '-B', '-C', '-m', '--regexp', '--file', '--max-count', '--context'];
/** Per command, the options that take the next word as their value. */
const VALUE_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  head: new Set(['-n', '-c', '--lines', '--bytes']),
  tail: new Set(['-n', '-c', '--lines', '--bytes']),
  bat: new Set(['-l', '-r', '--language', '--line-range']),
  batcat: new Set(['-l', '-r', '--language', '--line-range']),
  grep: new Set(GREP_VALUES),
  egrep: new Set(GREP_VALUES),
  fgrep: new Set(GREP_VALUES),
  rg: new Set([...GREP_VALUES, '-g', '-t', '-T', '--glob', '--type', '--type-not']),
  ag: new Set(['-A', '-B', '-C', '-m', '-G', '-g']),
  sed: new Set(['-e', '-f', '--expression', '--file']),
  awk: new Set(['-f', '-v', '-F']),
};
/** Options that give the pattern or script themselves, so the first operand is a file too. */
const PATTERN_OPTIONS = new Set(['-e', '-f', '--regexp', '--file', '--expression']);
/** Searches whose `-r` makes their operands folders. */
const SEARCHES = new Set(['grep', 'egrep', 'fgrep']);

/**
 * A command with its first heredoc's body left out: the line that opens it stays (its `>`
 * redirection names the file written, as in `cat > a.ts <<'EOF'`), the body and what follows
 * the terminator go. The command itself when it has no heredoc.
 */
function withoutHeredocBody(command: string): string {
  const here = /<<-?[ \t]*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/.exec(command);
  if (!here) return command;
  const lineEnd = command.indexOf('\n', here.index);
  return command.slice(0, here.index) + (lineEnd < 0 ? '' : command.slice(here.index + here[0].length, lineEnd));
}

/** The files `command` read or wrote, in order; empty when it names none this parser trusts. */
export function shellFileTouches(whole: string): ShellFileTouch[] {
  if (whole.length > 100_000) return [];
  const command = withoutHeredocBody(whole);
  if (command.length > 4_000 || /`|\$\(|<<|\\\n/.test(command)) return [];
  const out: ShellFileTouch[] = [];
  let dir = '';
  for (const segment of splitSegments(command)) {
    const words = tokenize(segment);
    if (words === undefined) return out;
    while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] ?? '')) words.shift();
    const [name = '', ...rest] = words;
    if (name === 'cd') {
      const target = rest[0];
      if (target === undefined || !plainPath(target)) return out;
      dir = join(dir, target);
      continue;
    }
    const { args, writes } = withoutRedirections(rest);
    for (const w of writes) out.push({ path: join(dir, w), edited: true });
    for (const p of operandFiles(name.split('/').pop() ?? name, args))
      out.push({ path: join(dir, p.path), edited: p.edited });
  }
  return out;
}

function operandFiles(name: string, args: readonly string[]): ShellFileTouch[] {
  if (name === 'tee')
    return args.filter((a) => !a.startsWith('-') && plainPath(a)).map((path) => ({ path, edited: true }));
  if (name === 'cp' || name === 'mv' || name === 'install') return copied(name, args);
  if (name === 'ln') return linked(args);
  if (name === 'dd')
    return args.flatMap((a) =>
      a.startsWith('of=') && plainPath(a.slice(3)) ? [{ path: a.slice(3), edited: true }] : [],
    );
  if (name === 'truncate')
    return args
      .filter((a, i) => !a.startsWith('-') && !/^-s$|^--size$/.test(args[i - 1] ?? '') && plainPath(a))
      .map((path) => ({ path, edited: true }));
  const reader = READERS.has(name);
  if (!reader && !PATTERN_FIRST.has(name)) return [];
  const operands: string[] = [];
  let patternGiven = false;
  let inPlace = false;
  let recursive = false;
  const values = VALUE_OPTIONS[name];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('-') && a !== '-') {
      const flag = a.split('=')[0] as string;
      // awk's -v and -F are not its program; its -f is.
      if (PATTERN_OPTIONS.has(flag) && (name !== 'awk' || flag === '-f')) patternGiven = true;
      if (name === 'sed' && (/^-[a-zA-Z]*i/.test(a) || flag === '--in-place')) inPlace = true;
      if (SEARCHES.has(name) && (/^-[a-zA-Z]*[rR]/.test(a) || flag === '--recursive')) recursive = true;
      if (values?.has(a)) i++;
      continue;
    }
    operands.push(a);
  }
  const files = reader || patternGiven ? operands : operands.slice(1);
  // A recursive search names folders, and rg/ag search folders by default: only paths with a file name's extension count.
  const fileLike = recursive || name === 'rg' || name === 'ag';
  return files
    .filter((f) => plainPath(f) && (!fileLike || /\.[A-Za-z0-9]+$/.test(f)))
    .map((path) => ({ path, edited: name === 'sed' && inPlace }));
}

/**
 * `cp SRC DST` / `mv SRC DST` of one file: the source read (`cp` only: after `mv` it is gone)
 * and the destination written, when the destination names a file (an extension, no trailing
 * slash); a recursive copy, a target-directory option or several sources name nothing.
 */
function copied(name: 'cp' | 'mv' | 'install', args: readonly string[]): ShellFileTouch[] {
  const operands: string[] = [];
  for (const a of args) {
    if (a.startsWith('-') && a !== '-') {
      if (/^-[a-zA-Z]*[rRat]/.test(a) || /^--(recursive|archive|target-directory)/.test(a)) return [];
      continue;
    }
    operands.push(a);
  }
  const [src, dst] = operands;
  if (operands.length !== 2 || src === undefined || dst === undefined) return [];
  if (!plainPath(src) || !plainPath(dst) || dst.endsWith('/') || !/\.[A-Za-z0-9]+$/.test(dst)) return [];
  return name !== 'mv'
    ? [
        { path: src, edited: false },
        { path: dst, edited: true },
      ]
    : [{ path: dst, edited: true }];
}

/**
 * `ln [-sf…] TARGET LINK`: the link written (whatever it points at, a program that runs the
 * path now runs the target); a target-directory option or several targets name nothing.
 */
function linked(args: readonly string[]): ShellFileTouch[] {
  const operands: string[] = [];
  for (const a of args) {
    if (a.startsWith('-') && a !== '-') {
      if (/^-[a-zA-Z]*t/.test(a) || a.startsWith('--target-directory')) return [];
      continue;
    }
    operands.push(a);
  }
  const link = operands[1];
  return operands.length === 2 && link !== undefined && plainPath(link) && !link.endsWith('/')
    ? [{ path: link, edited: true }]
    : [];
}

/** Operands without redirections; the files written by `>` / `>>` (not /dev/… nor a descriptor). */
function withoutRedirections(words: readonly string[]): { args: string[]; writes: string[] } {
  const args: string[] = [];
  const writes: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const m = /^(\d*|&)(>>?|<)(.*)$/.exec(w);
    if (!m) {
      args.push(w);
      continue;
    }
    const target = m[3] !== '' ? m[3] : words[++i];
    if (m[2] !== '<' && target !== undefined && !target.startsWith('&') && plainPath(target)) writes.push(target);
  }
  return { args, writes: writes.filter((w) => !w.startsWith('/dev/')) };
}

/** Whether a word is a path this parser trusts: no variable, glob, brace, home or option. */
function plainPath(word: string): boolean {
  return (
    word !== '' && word !== '-' && !word.startsWith('-') && !/[$*?[\]{}~<>|&;()'"]/.test(word) && word.length < 400
  );
}

function join(dir: string, path: string): string {
  if (dir === '' || path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path)) return path;
  return `${dir.replace(/\/+$/, '')}/${path}`;
}

/** The command split at `&&`, `||`, `;`, `|` and newlines outside quotes. */
function splitSegments(command: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
      cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      cur += c;
    } else if (c === ';' || c === '\n' || c === '|' || (c === '&' && command[i + 1] === '&')) {
      out.push(cur);
      cur = '';
      if ((c === '&' || c === '|') && command[i + 1] === c) i++;
    } else cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/** The words of one segment with quotes removed; undefined when a quote is left open. */
function tokenize(segment: string): string[] | undefined {
  const words: string[] = [];
  let cur: string | undefined;
  let quote: string | undefined;
  for (const c of segment) {
    if (quote) {
      if (c === quote) quote = undefined;
      else cur = (cur ?? '') + c;
    } else if (c === '"' || c === "'") {
      quote = c;
      cur ??= '';
    } else if (/\s/.test(c)) {
      if (cur !== undefined) words.push(cur);
      cur = undefined;
    } else cur = (cur ?? '') + c;
  }
  if (quote) return undefined;
  if (cur !== undefined) words.push(cur);
  return words;
}
