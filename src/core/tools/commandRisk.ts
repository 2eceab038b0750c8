/**
 * What a proposed shell command can do beyond what it prints, as far as its text says so: the
 * first risky file it writes (pathRisk.ts over the files shellFiles.ts finds
 * written: `>`, `tee`, `sed -i`, `cp`, `mv`, `ln`, `dd of=` …), else code it runs inline
 * (`node -e`, `python -c`, `perl -e` …: such code can write any file, and its text is not read
 * here) or git configuration that makes git run programs (`git config core.hooksPath …`). A
 * command this cannot read is not flagged: the approval card asks the user to read it all. Pure.
 */
import { shellFileTouches } from './shellFiles';
import { classifyPathRisk, type PathRisk } from './pathRisk';

/** Inline interpreters and the option that hands them a program on the command line. */
const INLINE_CODE =
  /(^|[\s;&|(])((node|nodejs|deno|bun)\s+(.*\s)?(-e|--eval|-p|--print)|(python[0-9.]*|pypy[0-9.]*)\s+(.*\s)?-c|(perl|ruby)\s+(.*\s)?-[a-zA-Z]*[eE]|php\s+(.*\s)?-r|(bash|sh|zsh)\s+(.*\s)?-c)(\s|=|$)/;

/** `git config` of a key that makes git run a program (or changes where hooks come from). */
const GIT_RUNS =
  /\bgit\s+(-c\s+\S+\s+)*config\b.*\b(core\.(hookspath|fsmonitor|sshcommand|editor|pager|askpass)|alias\.|filter\.|diff\.[^.\s]+\.(textconv|command)|credential\.helper|include\.path|includeif\.)/i;

/** The risk of running `command` (see the module comment), or undefined when its text shows none. */
export function classifyCommandRisk(command: string): PathRisk | undefined {
  for (const touch of shellFileTouches(command)) {
    if (!touch.edited) continue;
    const r = classifyPathRisk(touch.path);
    if (r) return { risk: r.risk, reason: `it writes ${touch.path} — ${r.reason}` };
  }
  if (GIT_RUNS.test(command))
    return {
      risk: 'runs-code',
      reason: "it changes git's configuration so that git runs a program (hooks, fsmonitor, ssh, aliases, filters …)",
    };
  if (INLINE_CODE.test(command))
    return {
      risk: 'runs-code',
      reason: 'it runs code given on the command line (an interpreter with -e/-c): that code can write any file',
    };
  return undefined;
}
