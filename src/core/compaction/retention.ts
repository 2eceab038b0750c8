/**
 * The retention check of a compaction: identifiers found in the originals (file paths, code
 * symbols, error messages, URLs, numbers the user gave) and which of them the replacement
 * lost. Heuristic, by regular expressions; a hint for the user, not a proof.
 */
import type { Message, ToolResultContent } from '../conversation/conversationModel';
import type { RetentionCheck, RetentionKind } from './types';

/** Kinds in order of importance (a lost number the user gave matters most). */
export const RETENTION_KINDS: readonly RetentionKind[] = ['number', 'error', 'path', 'url', 'symbol'];

/** Most lost identifiers listed per kind, and overall. */
const MAX_LOST_PER_KIND = 200;
const MAX_LOST = 50;

/**
 * Names of our own making, never the conversation's: the tags the pipeline wraps injected
 * context and summaries in, and the field names of file tools' inputs (ours and those of the
 * transcripts we replay, e.g. Claude Code's Edit). They are in every session, and a summary
 * has no reason to repeat them, so counting them as "lost" only hid what was.
 */
const OWN_NAMES: ReadonlySet<string> = new Set([
  'system-reminder',
  'system_reminder',
  'ide_selection',
  'ide_opened_file',
  'attached_file',
  'conversation_summary',
  'file_path',
  'old_string',
  'new_string',
  'replace_all',
  'case_sensitive',
  'max_results',
  'timeout_ms',
  'tool_use',
  'tool_result',
  'tool_use_id',
]);

/** Whether an identifier is one of our own names (a tag or a tool-input field name), not the conversation's. */
export function isOwnName(id: string): boolean {
  return OWN_NAMES.has(id.replace(/^\/+/, '').toLowerCase());
}

/** Identifiers of each kind, each with how often it was mentioned. */
export type Identifiers = Record<RetentionKind, Map<string, number>>;

const SPLIT = /[\s"'`()[\]{}<>,;|=]+/;
const URL = /\bhttps?:\/\/[^\s<>"'`)\]}]+/g;
const PATH = /^(?:~|\.{1,2})?\/?(?:[\w@.+-]+\/)+[\w@+-][\w@.+-]*\.[A-Za-z][A-Za-z0-9]{0,7}$/;
const DOT_PATH = /^\.{1,2}\/[\w@.+-]+(?:\/[\w@.+-]+)*$/;
const CAMEL = /^[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*$/;
const PASCAL = /^[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*$/;
const SNAKE = /^_?[a-z][a-z0-9]*(?:_[a-z0-9]+)+$|^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
const DOTTED = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;
const ERROR_LINE =
  /[A-Za-z](?:Error|Exception)\b|\b(?:Error|Exception|failed|FAILED|FAIL|fatal|panic|Traceback)\b|\bE(?:NOENT|ACCES|PERM|EXIST|CONNREFUSED|CONNRESET|ADDRINUSE|TIMEDOUT)\b/;
const CODE_LINE =
  /\bthrow\b|\bcatch\s*\(|^\s*(?:import|export|class|interface|function|def|const|let|var|raise|except)\b|=>|^\s*(?:\/\/|#|\*)/;
const NUMBER = /(?<![\w.])\d{2,}(?:\.\d+)?(?![\w])/g;

function add(map: Map<string, number>, key: string): void {
  if (isOwnName(key)) return;
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** The string values of a tool's input, without its field names (those are the tool's, not the conversation's). */
function inputValues(input: unknown): string {
  if (typeof input === 'string') return input;
  if (typeof input === 'number' || typeof input === 'boolean') return String(input);
  if (Array.isArray(input)) return input.map(inputValues).join('\n');
  if (input && typeof input === 'object') return Object.values(input).map(inputValues).join('\n');
  return '';
}

function isSymbol(token: string): boolean {
  if (token.length < 4) return false;
  if (CAMEL.test(token) || PASCAL.test(token) || SNAKE.test(token)) return true;
  if (!DOTTED.test(token)) return false;
  const parts = token.split('.');
  return /^[A-Z]/.test(parts[0] as string) || parts.some((p) => CAMEL.test(p) || SNAKE.test(p) || PASCAL.test(p));
}

function scanText(text: string, into: Identifiers): void {
  for (const m of text.matchAll(URL)) add(into.url, m[0].replace(/[.,;:!?]+$/, ''));
  const withoutUrls = text.replace(URL, ' ');
  for (const raw of withoutUrls.split(SPLIT)) {
    const token = raw.replace(/[.,;:!?]+$/, '').replace(/(?::\d+)+$/, '');
    if (!token) continue;
    if (PATH.test(token) || DOT_PATH.test(token)) add(into.path, token);
    else if (isSymbol(token)) add(into.symbol, token);
  }
  for (const line of text.split('\n')) {
    if (!ERROR_LINE.test(line) || CODE_LINE.test(line)) continue;
    const error = line.trim().replace(/\s+/g, ' ').slice(0, 80);
    if (error.length >= 8) add(into.error, error);
  }
}

function resultText(content: ToolResultContent): string {
  return typeof content === 'string' ? content : content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

/**
 * Finds identifiers in messages: everything in text, tool inputs' values and results; numbers
 * only in the user's words; never our own names ({@link isOwnName}).
 */
export function extractIdentifiers(messages: readonly Message[]): Identifiers {
  const ids: Identifiers = { path: new Map(), symbol: new Map(), error: new Map(), url: new Map(), number: new Map() };
  for (const m of messages) {
    for (const b of m.blocks) {
      if (b.type === 'text' || b.type === 'summary') {
        scanText(b.text, ids);
        if (b.type === 'text' && b.meta.source === 'user')
          for (const n of b.text.replace(URL, ' ').matchAll(NUMBER)) add(ids.number, n[0]);
      } else if (b.type === 'tool_use') scanText(inputValues(b.input), ids);
      else if (b.type === 'tool_result') scanText(resultText(b.content), ids);
    }
  }
  return ids;
}

/** Whether `needle` occurs in `hay` with no word character directly around it. */
export function containsWord(hay: string, needle: string): boolean {
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + 1)) {
    const before = hay[i - 1] ?? ' ';
    const after = hay[i + needle.length] ?? ' ';
    if (!/[\w$]/.test(before) && !/[\w$]/.test(after)) return true;
  }
  return false;
}

function normalise(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ');
}

function errorRetained(error: string, hay: string, hayNorm: string): boolean {
  if (hay.includes(error) || hayNorm.includes(normalise(error).slice(0, 40))) return true;
  const words = [...new Set(normalise(error).match(/[a-z][a-z0-9_]{3,}/g) ?? [])];
  if (words.length === 0) return false;
  return words.filter((w) => hayNorm.includes(w)).length / words.length >= 0.6;
}

function retained(kind: RetentionKind, id: string, hay: string, hayNorm: string): boolean {
  switch (kind) {
    case 'path':
    case 'url':
      return hay.includes(id);
    case 'symbol':
    case 'number':
      return containsWord(hay, id);
    case 'error':
      return errorRetained(id, hay, hayNorm);
  }
}

/** All text of messages, as the retention check searches it (text, summaries, tool inputs and results). */
export function messagesText(messages: readonly Message[]): string {
  const parts: string[] = [];
  for (const m of messages) {
    for (const b of m.blocks) {
      if (b.type === 'text' || b.type === 'summary') parts.push(b.text);
      else if (b.type === 'tool_use') parts.push(JSON.stringify(b.input) ?? '');
      else if (b.type === 'tool_result') parts.push(resultText(b.content));
    }
  }
  return parts.join('\n');
}

/**
 * Checks which identifiers of the originals the replacement text lost. Lost identifiers are
 * ordered by kind (user numbers, errors, paths, URLs, symbols) and, within a kind, by how
 * often the originals mentioned them.
 */
export function checkRetention(originals: readonly Message[], replacementText: string): RetentionCheck {
  const ids = extractIdentifiers(originals);
  const hayNorm = normalise(replacementText);
  let found = 0;
  let kept = 0;
  const kinds = {} as Record<RetentionKind, { found: number; lost: string[] }>;
  const lostAll: string[] = [];
  for (const kind of RETENTION_KINDS) {
    const entries = [...ids[kind].entries()].sort((a, b) => b[1] - a[1]);
    const lost = entries.filter(([id]) => !retained(kind, id, replacementText, hayNorm)).map(([id]) => id);
    found += entries.length;
    kept += entries.length - lost.length;
    kinds[kind] = { found: entries.length, lost: lost.slice(0, MAX_LOST_PER_KIND) };
    lostAll.push(...lost);
  }
  return { kinds, lost: lostAll.slice(0, MAX_LOST), retained: found === 0 ? 1 : kept / found };
}

/** The identifiers a check found lost, without our own names (records saved before they were left out still list them). */
export function lostIdentifiers(check: RetentionCheck): readonly string[] {
  return check.lost.filter((id) => !isOwnName(id));
}

/** Below this share of the originals' identifiers kept, a summary has lost their specifics. */
export const LOW_RETENTION_SHARE = 0.2;

/** Fewest lost identifiers for a low share to count: a region with a handful of identifiers is no signal. */
export const LOW_RETENTION_MIN_LOST = 5;

/**
 * Whether what a summary lost is worth a warning (⚠). A summary is meant to be shorter than
 * what it replaces: most identifiers a tool result brought in (the symbols of a file read
 * whole, the lines of a test run) are rightly left out, and every one of them stays
 * recallable, so "some identifiers lost" is every ordinary compaction and a warning on it
 * teaches the user to ignore the sign. Two cases are not ordinary:
 * - a number the user gave is lost: the user's words are kept verbatim beside the summary,
 *   so such a loss means the replacement dropped what the user asked for;
 * - the summary kept less than {@link LOW_RETENTION_SHARE} of the identifiers (and at least
 *   {@link LOW_RETENTION_MIN_LOST} are lost): it carries almost none of the originals'
 *   files, symbols and errors — a generic or cut-off summary, a summariser failure in disguise.
 */
export function significantLoss(check: RetentionCheck): boolean {
  if (check.kinds.number.lost.length > 0) return true;
  return check.retained < LOW_RETENTION_SHARE && lostIdentifiers(check).length >= LOW_RETENTION_MIN_LOST;
}
