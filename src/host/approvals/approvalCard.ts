/**
 * The chat items that ask for approval: an edit as a unified diff (line by line, capped) and
 * a shell command with its folder. Pure: no VS Code, so it is unit-tested directly.
 */
import { basename } from 'node:path';
import { structuredPatch } from 'diff';
import { classifyEditRisk } from '../../core/tools/pathRisk';
import { classifyCommandRisk } from '../../core/tools/commandRisk';
import type { ChatItem } from '../../protocol/chatItems';
import type { CommandProposal, EditProposal } from './approval';

/** An approval item of the chat. */
export type ApprovalItem = Extract<ChatItem, { kind: 'approval' }>;
type DiffLine = NonNullable<ApprovalItem['diff']>[number];

/** Most diff lines an approval card carries (the whole diff is in VS Code's diff editor). */
export const MAX_CARD_DIFF_LINES = 400;
/** Longest single diff line the card carries. */
export const MAX_CARD_LINE_CHARS = 500;
/**
 * How much work computing the inline diff may take before the card omits it ("too large to
 * show"): a wall-clock limit, an edit-distance limit, both or neither.
 */
export interface DiffBudget {
  /** Milliseconds of computing (jsdiff's `timeout`, measured with Date.now). */
  readonly timeoutMs?: number;
  /** Most inserted + removed lines (jsdiff's `maxEditLength`): the same answer on any machine. */
  readonly maxEdits?: number;
}

/** The budget the extension uses: half a second, so a huge edit never stalls the extension host. */
export const DEFAULT_DIFF_BUDGET: DiffBudget = { timeoutMs: 500 };

/**
 * The card for a proposed edit: its risk flag when the file can run code, change settings
 * or hold secrets (core/tools/pathRisk.ts, on the shown and the real path), `+`/`-` counts and the unified diff (3 lines of context) as
 * lines, at most `maxLines` of them and each cut at MAX_CARD_LINE_CHARS; `omittedLines`
 * counts what was left out. A diff over `budget` is omitted entirely. Tests pass a budget
 * without a timeout, so a busy machine cannot turn a small diff into an omitted one.
 */
export function editApprovalItem(
  id: string,
  p: EditProposal,
  maxLines = MAX_CARD_DIFF_LINES,
  budget: DiffBudget = DEFAULT_DIFF_BUDGET,
): ApprovalItem {
  const limits = {
    ...(budget.timeoutMs !== undefined ? { timeout: budget.timeoutMs } : {}),
    ...(budget.maxEdits !== undefined ? { maxEditLength: budget.maxEdits } : {}),
  };
  const patch = structuredPatch(p.displayPath, p.displayPath, p.before, p.after, undefined, undefined, {
    context: 3,
    ...limits,
  });
  const risk = classifyEditRisk(p.displayPath, p.path);
  const base = {
    kind: 'approval' as const,
    id,
    tool: 'edit_file' as const,
    subject: p.displayPath,
    detail: p.isNewFile ? 'new file' : 'edit',
    state: 'pending' as const,
    ...(risk ? { risk: { kind: risk.risk, reason: risk.reason } } : {}),
  };
  if (!patch) return { ...base, diff: [], omittedLines: countLines(p.before) + countLines(p.after) };
  const lines: DiffLine[] = [];
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    // Unified-diff convention (as `diff -u` and jsdiff's formatPatch write it): an empty side
    // names the line before the change, e.g. `@@ -0,0 +1,2 @@` for a new file.
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    lines.push({ op: '@', text: `@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@` });
    for (const raw of hunk.lines) {
      const op = raw[0];
      if (op === '\\') continue; // "\ No newline at end of file"
      if (op === '+') added++;
      if (op === '-') removed++;
      lines.push({ op: op === '+' || op === '-' ? op : ' ', text: cut(raw.slice(1)) });
    }
  }
  const shown = lines.slice(0, maxLines);
  const omitted = lines.length - shown.length;
  return { ...base, diff: shown, added, removed, ...(omitted > 0 ? { omittedLines: omitted } : {}) };
}

/**
 * The card for a proposed shell command: the command line, the folder it runs in, and its risk
 * flag (core/tools/commandRisk.ts: a risky file it writes, inline code, git configuration
 * that runs programs; a command it cannot read is not flagged, which the card's "read it all"
 * already asks of the user).
 */
export function commandApprovalItem(id: string, p: CommandProposal): ApprovalItem {
  const risk = commandRisk(p.command);
  return {
    kind: 'approval',
    id,
    tool: 'run_command',
    subject: p.command,
    detail: commandFolder(p),
    state: 'pending',
    ...(risk ? { risk } : {}),
  };
}

/**
 * Where a command runs, in words: `in the workspace root (myproject)` rather than `in .`; a
 * subfolder as tools show it (`in src/app`, or `in myproject/src` in a multi-root workspace).
 */
export function commandFolder(p: Pick<CommandProposal, 'cwd' | 'displayCwd' | 'rootName'>): string {
  if (p.displayCwd !== '.' && p.displayCwd !== '') return `in ${p.displayCwd}`;
  const name = p.rootName || basename(p.cwd);
  return name ? `in the workspace root (${name})` : 'in the workspace root';
}

/** The command's risk flag for the card (core/tools/commandRisk.ts). */
function commandRisk(command: string): ApprovalItem['risk'] {
  const r = classifyCommandRisk(command);
  return r ? { kind: r.risk, reason: r.reason } : undefined;
}

function cut(line: string): string {
  return line.length > MAX_CARD_LINE_CHARS ? `${line.slice(0, MAX_CARD_LINE_CHARS)}…` : line;
}

function countLines(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
