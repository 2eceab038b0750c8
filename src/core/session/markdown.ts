/**
 * A readable Markdown export of a session: what was said, what the tools did, what each
 * request cost. For people, not for reloading (the JSONL export is the lossless one). Pure.
 */
import { describeServerBlock } from '../conversation/serverTools';
import type { Block, Message, ToolResultBlock, ToolResultContent } from '../conversation/conversationModel';
import { formatBytes, headChars } from '../platform/text';
import type { UsageEntry } from './entries';
import type { ReplayedSession } from './replay';
import { sessionCostUsd } from './sessionCost';
import { summariesCost } from '../compaction/health';

/** Tool inputs and results longer than this many characters are cut in the export. */
export const MARKDOWN_MAX_TOOL_CHARS = 4000;

const CONTEXT_SOURCES = new Set([
  'ide_selection',
  'ide_opened_file',
  'attached_file',
  'reminder',
  'hook',
  'system',
  'instructions',
  'workspace',
]);

/**
 * Renders the session: a title and facts (id, model, workspace, dates, totals), then each
 * turn with the user's words, editor context as quoted tags, the assistant's text and
 * thinking, each tool call as fenced JSON followed by its result (cut after
 * MARKDOWN_MAX_TOOL_CHARS characters, with a note), compaction summaries marked as such,
 * and the usage and cost of each request of the turn. Dates are UTC ISO strings.
 */
export function sessionToMarkdown(s: ReplayedSession): string {
  const out: string[] = [];
  const cost = sessionCostUsd({
    ...s,
    stoppedSummaries: s.requestHistory.stoppedSummaries,
    ...(s.header.continuedFrom ? { continuedFrom: s.header.continuedFrom } : {}),
  });
  out.push(`# ${sessionDisplayTitle(s.title, s.messages)}`, '');
  out.push(`- Session: \`${s.header.sessionId}\``, `- Model: ${s.header.model}`);
  if (s.header.workspace) out.push(`- Workspace: ${s.header.workspace}`);
  const from = s.header.continuedFrom;
  if (from) out.push(`- Continued from: ${from.title.replace(/\s+/g, ' ')} (\`${from.sessionId}\`)`);
  out.push(`- Created: ${iso(s.header.createdAt)}`, `- Last activity: ${iso(s.updatedAt)}`);
  out.push(`- Messages: ${s.messages.length} · Requests: ${s.usage.length} · Cost: ${usd(cost)}`);
  const compacted = s.compactions.filter((c) => c.active).length;
  if (compacted > 0) out.push(`- Compactions in effect: ${compacted} (older turns appear as summaries)`);
  const stopped = s.requestHistory.stoppedSummaries;
  if (stopped.length > 0)
    out.push(
      `- Summaries cut short (stopped or timed out): ${stopped.length}, ${usd(summariesCost(stopped))} (in the cost)`,
    );
  out.push('');
  const results = new Map<string, ToolResultBlock>();
  for (const m of s.messages) for (const b of m.blocks) if (b.type === 'tool_result') results.set(b.toolUseId, b);
  const calls = new Set(s.messages.flatMap((m) => m.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))));
  const usageByTurn = new Map<number, UsageEntry[]>();
  for (const u of s.usage) usageByTurn.set(u.turn, [...(usageByTurn.get(u.turn) ?? []), u]);
  let turn: number | undefined;
  s.messages.forEach((m, i) => {
    if (m.turn !== turn) {
      turn = m.turn;
      out.push(`## Turn ${m.turn}`, '');
    }
    const body: string[] = [];
    for (const b of m.blocks) renderBlock(b, body, results, calls);
    // A message of tool results only renders nothing here: its results are under their calls.
    if (body.length > 0) out.push(m.role === 'user' ? '**You**' : '**Claude**', '', ...body);
    if (s.messages[i + 1]?.turn !== m.turn) renderUsage(usageByTurn.get(m.turn) ?? [], out);
  });
  return `${out.join('\n').trimEnd()}\n`;
}

function renderBlock(
  b: Block,
  out: string[],
  results: ReadonlyMap<string, ToolResultBlock>,
  calls: ReadonlySet<string>,
): void {
  switch (b.type) {
    case 'text':
      if (b.meta.source === 'compactor') out.push('> **Compaction summary**', '>', quote(b.text), '');
      else if (CONTEXT_SOURCES.has(b.meta.source)) out.push(quote(b.text), '');
      else out.push(b.text, '');
      return;
    case 'summary':
      out.push(
        `> **Compaction summary** of turns ${b.turnRange[0]}–${b.turnRange[1]} (compaction \`${b.compactionId}\`)`,
        '>',
        quote(b.text),
        '',
      );
      return;
    case 'thinking':
      out.push('<details><summary>Thinking</summary>', '', b.thinking, '', '</details>', '');
      return;
    case 'image':
      out.push(`_[image: ${b.mediaType}, ${formatBytes(Math.floor((b.data.length * 3) / 4))}]_`, '');
      return;
    case 'server_tool':
      out.push(`_Server tool: ${describeServerBlock(b)}_`, '');
      return;
    case 'tool_use': {
      out.push(
        `**Tool call** \`${b.name}\` (\`${b.id}\`)`,
        '',
        fenced(cut(JSON.stringify(b.input, null, 2) ?? 'null'), 'json'),
        '',
      );
      const r = results.get(b.id);
      if (r) renderResult(r, out);
      else out.push('_No result was recorded for this call._', '');
      return;
    }
    case 'tool_result':
      // Shown under its call; only a result whose call is not in the conversation is shown here.
      if (!calls.has(b.toolUseId)) renderResult(b, out);
      return;
  }
}

function renderResult(r: ToolResultBlock, out: string[]): void {
  out.push(
    r.isError ? '**Result** (error):' : '**Result**:',
    '',
    fenced(cut(contentText(r.content).trimEnd()), ''),
    '',
  );
}

function renderUsage(usage: readonly UsageEntry[], out: string[]): void {
  if (usage.length === 0) return;
  out.push(
    '| Request | Model | Input | Cache read | Cache write | Output | Estimated input | Cost |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const u of usage) {
    const x = u.usage;
    out.push(
      `| ${u.requestIndex}${u.cut ? ' (cut off)' : ''} | ${u.model} | ${x.input_tokens} | ${x.cache_read_input_tokens} | ${x.cache_creation_input_tokens} | ${u.cut ? '~' : ''}${x.output_tokens} | ${u.estimatedInputTokens} | ${usd(u.costUsd)} |`,
    );
  }
  if (usage.some((u) => u.cut))
    out.push(
      '',
      'A request marked "cut off" ended before its answer did (Stop, a dropped connection): it counts for the prompt the API reported and the output that had arrived (~: estimated).',
    );
  out.push('');
}

function contentText(c: ToolResultContent): string {
  return typeof c === 'string' ? c : c.map((p) => (p.type === 'text' ? p.text : `[image: ${p.mediaType}]`)).join('\n');
}

function cut(text: string): string {
  if (text.length <= MARKDOWN_MAX_TOOL_CHARS) return text;
  const head = headChars(text, MARKDOWN_MAX_TOOL_CHARS);
  return `${head}\n… [cut: ${text.length - head.length} more characters not shown in this export]`;
}

/** A fence longer than any backtick run inside, so content cannot close it. */
function fenced(text: string, lang: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => (l ? `> ${l}` : '>'))
    .join('\n');
}

/**
 * The title a session is shown under: its title if it has one, else the first words the
 * user typed, on one line and at most `maxChars` characters (with `…` when cut), else
 * `Untitled session`.
 */
export function sessionDisplayTitle(title: string | undefined, messages: readonly Message[], maxChars = 60): string {
  const pick = (t: string) => {
    const line = t.replace(/\s+/g, ' ').trim();
    return line.length > maxChars ? `${headChars(line, maxChars - 1)}…` : line;
  };
  if (title?.trim()) return pick(title);
  for (const m of messages)
    for (const b of m.blocks) if (b.type === 'text' && b.meta.source === 'user' && b.text.trim()) return pick(b.text);
  return 'Untitled session';
}

function iso(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : 'unknown';
}

function usd(n: number | undefined): string {
  if (n === undefined) return '— (price unknown)';
  return `$${n.toFixed(n > 0 && n < 1 ? 4 : 2)}`;
}
