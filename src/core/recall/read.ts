/**
 * The read mode of recall: finds one original (a compaction's messages, a message, a tool
 * call with its result, a block, a saved output) by id, or a compacted turn's messages (of an
 * old session this one continues too, named as its), renders it as plain text and returns one page of it as numbered lines with read_file's
 * paging and caps. Pure.
 */
import { describeServerBlock } from '../conversation/serverTools';
import type { Block, Message } from '../conversation/conversationModel';
import { headChars } from '../platform/text';
import type { ToolLimits } from '../tools/limits';
import { formatCount, plural } from '../text/counts';
import { toolError, toolOk, type ToolResult } from '../tools/result';
import { resultText, type RecallSource, type SpilledOutput } from './corpus';
import { pastWords } from './search';

/** Something recall can return in full, with the compactions it came from. */
export interface RecallDocument {
  /** How to ask for it again (`id=…` or `turn=… compaction=…`), for the paging note. */
  readonly selector: string;
  readonly text: string;
  readonly compactionIds: readonly string[];
}

/** Compactions (and an old session's history) as recall reads them. */
type Compactions = readonly RecallSource[];

/** Where a source's messages come from, for their headings: `compaction c1`, or an old session's. */
export function sourceWords(source: RecallSource): string {
  if (!source.past) return `compaction ${source.record.id}`;
  return source.past.history ? pastWords(source.past) : `compaction ${source.record.id} · ${pastWords(source.past)}`;
}

/** The ids a document came from that are this session's compactions (an old session's are not counted). */
function ownIds(sources: readonly RecallSource[]): string[] {
  return [...new Set(sources.filter((s) => !s.past).map((s) => s.record.id))];
}

/** Room kept under the result cap for the closing notes. */
const FOOTER_RESERVE = 400;

/** read_file's line prefix: the line number right-aligned in 6 columns, then a tab. */
function numberLine(lineNo: number, text: string): string {
  return `${String(lineNo).padStart(6)}\t${text}`;
}

/** Tool names by tool_use id, over every compaction's originals (a result names its tool). */
function toolNamesOf(compactions: Compactions): Map<string, string> {
  return new Map(
    compactions.flatMap((c) =>
      c.record.originals.flatMap((m) =>
        m.blocks.flatMap((b) => (b.type === 'tool_use' ? [[b.id, b.name] as const] : [])),
      ),
    ),
  );
}

/**
 * A message as plain text: a heading naming it, then each block (or those `only` keeps);
 * `names` gives the tool of a result whose call stands in another message.
 */
export function renderMessage(
  m: Message,
  from: string,
  names: ReadonlyMap<string, string> = new Map(),
  only?: (b: Block) => boolean,
): string {
  const out = [`=== ${m.role} · turn ${m.turn} · message ${m.id} · ${from} ===`];
  for (const b of m.blocks) {
    if (only && !only(b)) continue;
    switch (b.type) {
      case 'text':
        out.push(b.text);
        break;
      case 'summary':
        out.push(
          `--- summary of turns ${b.turnRange[0]}–${b.turnRange[1]} (compaction ${b.compactionId}, block ${b.meta.id}) ---`,
          b.text,
        );
        break;
      case 'thinking':
        out.push('--- thinking ---', b.thinking);
        break;
      case 'tool_use':
        out.push(`--- tool call ${b.name} (${b.id}) ---`, JSON.stringify(b.input, null, 2) ?? '{}');
        break;
      case 'tool_result': {
        const name = names.get(b.toolUseId);
        out.push(
          `--- tool result${name ? ` of ${name}` : ''} (${b.toolUseId})${b.isError ? ', error' : ''} ---`,
          resultText(b.content),
        );
        break;
      }
      case 'image':
        out.push(`[image ${b.mediaType}]`);
        break;
      case 'server_tool':
        out.push(`--- server tool: ${describeServerBlock(b)} ---`);
        break;
    }
  }
  return out.join('\n');
}

function baseName(path: string): string {
  return path.split(/[\\/]/).at(-1) ?? path;
}

/**
 * The original with id `id`: a compaction id (all its originals), a message id, a tool_use id
 * (the call and its result), a block id (one block, summaries included) or a saved output
 * (its path or file name). The oldest compaction holding it wins. Undefined when nothing has
 * that id.
 */
export function locateById(
  compactions: Compactions,
  spills: readonly SpilledOutput[],
  id: string,
): RecallDocument | undefined {
  const selector = `id=${id}`;
  const names = toolNamesOf(compactions);
  const whole = compactions.find((c) => c.record.id === id);
  if (whole)
    return {
      selector,
      text: whole.record.originals.map((m) => renderMessage(m, sourceWords(whole), names)).join('\n\n'),
      compactionIds: ownIds([whole]),
    };
  for (const source of compactions) {
    const m = source.record.originals.find((x) => x.id === id);
    if (m) return { selector, text: renderMessage(m, sourceWords(source), names), compactionIds: ownIds([source]) };
  }
  const call = toolCallDocument(compactions, spills, id, names);
  if (call) return call;
  for (const source of compactions) {
    for (const m of [...source.record.originals, ...source.record.replacement]) {
      const b = m.blocks.find((x) => x.meta.id === id);
      if (b)
        return {
          selector,
          text: renderMessage(m, sourceWords(source), names, (x) => x === b),
          compactionIds: ownIds([source]),
        };
    }
  }
  const spill = spills.find((s) => s.path === id) ?? spills.find((s) => baseName(s.path) === id);
  return spill ? { selector, text: `=== saved output ${spill.path} ===\n${spill.text}`, compactionIds: [] } : undefined;
}

/** The tool call `toolUseId` and its result (where the originals hold them), and a saved full output. */
function toolCallDocument(
  compactions: Compactions,
  spills: readonly SpilledOutput[],
  toolUseId: string,
  names: ReadonlyMap<string, string>,
): RecallDocument | undefined {
  const parts: string[] = [];
  const from: RecallSource[] = [];
  for (const source of compactions) {
    for (const m of source.record.originals) {
      const mine = (b: Block) =>
        (b.type === 'tool_use' && b.id === toolUseId) || (b.type === 'tool_result' && b.toolUseId === toolUseId);
      if (!m.blocks.some(mine)) continue;
      parts.push(renderMessage(m, sourceWords(source), names, mine));
      if (!from.includes(source)) from.push(source);
    }
    if (parts.length >= 2) break;
  }
  if (parts.length === 0) return undefined;
  const saved = spills.find((s) => baseName(s.path).startsWith(`tool-${toolUseId}`));
  if (saved)
    parts.push(`[The full output of this call was saved to ${saved.path}; read it with recall id=${saved.path}.]`);
  return { selector: `id=${toolUseId}`, text: parts.join('\n\n'), compactionIds: ownIds(from) };
}

/** Whether a message only holds the compactor's own blocks (a replacement that was compacted again). */
function compactorOnly(m: Message): boolean {
  return m.blocks.every((b) => b.meta.source === 'compactor');
}

/**
 * The original messages of turn `turn` (of one compaction when `compaction` is given), each
 * once, in conversation order; a summary or note that stood in for the turn only when no real
 * message of it is kept. An error naming the compacted turns when there is none.
 */
export function locateTurn(
  compactions: Compactions,
  turn: number,
  compaction?: string,
): RecallDocument | { readonly error: string } {
  // Turn numbers are the session's own: an old session's turns are read with its id as `compaction`.
  const pool =
    compaction === undefined
      ? compactions.filter((c) => !c.past)
      : compactions.filter((c) => c.record.id === compaction);
  if (pool.length === 0)
    return {
      error: `recall: there is no compaction "${compaction ?? ''}" in this session. Compactions: ${compactions.map((c) => c.record.id).join(', ')}.`,
    };
  const found: { m: Message; source: RecallSource }[] = [];
  const seen = new Set<string>();
  for (const source of pool) {
    for (const m of source.record.originals) {
      if (m.turn !== turn || seen.has(m.id)) continue;
      seen.add(m.id);
      found.push({ m, source });
    }
  }
  const real = found.filter((f) => !compactorOnly(f.m));
  const chosen = real.length > 0 ? real : found;
  if (chosen.length === 0)
    return {
      error: `recall: turn ${turn} is not among the compacted turns${compaction ? ` of ${compaction}` : ''} (${compactedTurns(pool)}). A turn that was never compacted is still in the conversation.`,
    };
  const names = toolNamesOf(compactions);
  return {
    selector: `turn=${turn}${compaction ? ` compaction=${compaction}` : ''}`,
    text: chosen.map((f) => renderMessage(f.m, sourceWords(f.source), names)).join('\n\n'),
    compactionIds: ownIds(chosen.map((f) => f.source)),
  };
}

/** `turns 1–4, 7` style list of the turns the compactions hold. */
function compactedTurns(compactions: Compactions): string {
  const turns = [...new Set(compactions.flatMap((c) => c.record.originals.map((m) => m.turn)))].sort((a, b) => a - b);
  if (turns.length === 0) return 'none';
  const ranges: string[] = [];
  let start = turns[0] as number;
  let prev = start;
  for (const t of [...turns.slice(1), Number.NaN]) {
    if (t === prev + 1) {
      prev = t;
      continue;
    }
    ranges.push(start === prev ? String(start) : `${start}–${prev}`);
    start = t;
    prev = t;
  }
  return `compacted turns: ${ranges.join(', ')}`;
}

/**
 * One page of `doc` as numbered lines, like read_file: from line `offset` (1-based, default
 * 1), at most `limit` lines (default `limits.readDefaultLines`), each cut at
 * `limits.readMaxLineChars` characters, the whole under `maxChars`; notes say which lines
 * were shown and how to page on. An offset past the end is an error.
 */
export function pageDocument(
  doc: RecallDocument,
  opts: { readonly offset?: number; readonly limit?: number },
  limits: ToolLimits,
  maxChars: number,
): ToolResult {
  const lines = doc.text.split('\n');
  const offset = opts.offset ?? 1;
  const limit = opts.limit ?? limits.readDefaultLines;
  if (offset > lines.length)
    return toolError(
      `recall: offset ${formatCount(offset)} is past the end of ${doc.selector}, which has ${plural(lines.length, 'line')}. Use a smaller offset.`,
    );
  const budget = Math.max(0, maxChars - FOOTER_RESERVE);
  const out: string[] = [];
  let chars = 0;
  let last = offset - 1;
  let cutLines = 0;
  let budgetHit = false;
  for (let n = offset; n <= Math.min(lines.length, offset + limit - 1); n++) {
    const text = lines[n - 1] ?? '';
    let line = text;
    if (text.length > limits.readMaxLineChars) {
      cutLines++;
      const kept = headChars(text, limits.readMaxLineChars);
      line = `${kept}… [line cut: ${formatCount(text.length - kept.length)} more characters]`;
    }
    const numbered = numberLine(n, line);
    if (out.length > 0 && chars + numbered.length + 1 > budget) {
      budgetHit = true;
      break;
    }
    out.push(numbered);
    chars += numbered.length + 1;
    last = n;
  }
  const notes: string[] = [];
  if (last < lines.length) {
    const why = budgetHit ? ` The result reached its ${formatCount(maxChars)}-character limit.` : '';
    notes.push(
      `[Showing lines ${formatCount(offset)}–${formatCount(last)} of ${formatCount(lines.length)}.${why} Continue with recall ${doc.selector} offset=${last + 1}.]`,
    );
  } else if (offset > 1) {
    notes.push(
      `[Showing lines ${formatCount(offset)}–${formatCount(last)} of ${formatCount(lines.length)} (the end).]`,
    );
  }
  if (cutLines > 0)
    notes.push(
      `[${plural(cutLines, 'line')} longer than ${formatCount(limits.readMaxLineChars)} characters ${cutLines === 1 ? 'was' : 'were'} cut.]`,
    );
  const body = out.join('\n');
  return toolOk(notes.length > 0 ? `${body}\n\n${notes.join('\n')}` : body);
}
