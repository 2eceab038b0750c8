/**
 * The JSON records of a transcript as the unseen-session generator builds them (the format of
 * test/fixtures/README.md: `message`, `usage` and `compaction` lines), how a fixture's lines
 * are read into them, and how they are written back. Blocks stay loose JSON on purpose: the
 * generator writes warts (null content, blocks in the wrong role, unknown types) on purpose.
 */

/** A content block or tool_result part: its `type` and whatever else it holds. */
export interface Block {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** The role of a message. */
export type Role = 'user' | 'assistant';

/** A Messages API message param: text, or an array of blocks. */
export interface MessageParam {
  readonly role: Role;
  readonly content: string | readonly Block[];
}

/** The token counts of a usage record; any of them may be missing in a transcript. */
export interface UsageFields {
  readonly input_tokens?: number;
  readonly cache_read_input_tokens?: number;
  readonly cache_creation_input_tokens?: number;
  readonly output_tokens?: number;
}

/** How the generator fills a usage record (usage.ts); never written to the transcript. */
export interface UsagePlan {
  /** A fixture's record: the prompt it reported and the estimate of the history before it. */
  origPrompt?: number;
  origEst?: number;
  /** A request the generator added: its usage is computed from the history before it. */
  fresh?: boolean;
  /** Written as it is (a `null` usage, or hand-made fields), never recomputed. */
  keep?: boolean;
  /** Output tokens of an added request (default 100). */
  output?: number;
}

/** `{"kind":"message"}`: one message. */
export interface MessageRecord {
  kind: 'message';
  message: MessageParam;
}

/** `{"kind":"usage"}`: the request that produced the next assistant message. */
export interface UsageRecord {
  kind: 'usage';
  model: string;
  at?: string;
  usage: UsageFields | null;
  plan?: UsagePlan;
}

/** `{"kind":"compaction"}`: the original agent compacted here. */
export interface CompactionRecord {
  kind: 'compaction';
  summary: string;
  tokensBefore: number;
}

/** One line of a transcript. */
export type TranscriptRecord = MessageRecord | UsageRecord | CompactionRecord;

/** A `message` record. */
export function messageRecord(role: Role, content: string | readonly Block[]): MessageRecord {
  return { kind: 'message', message: { role, content } };
}

/** Whether `v` is a JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `v` when it is an object or array (as `{...v}` would spread it), else `{}`. */
export function spreadable(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
}

/**
 * Parses a transcript's text into records. Throws `"<source>:<line>: …"` for a line that is
 * not a JSON object of one of the three kinds with the fields the generator relies on.
 */
export function parseRecords(text: string, source: string): TranscriptRecord[] {
  const out: TranscriptRecord[] = [];
  text.split('\n').forEach((l, i) => {
    if (!l.trim()) return;
    const o: unknown = JSON.parse(l);
    const bad = (what: string) => new Error(`${source}:${i + 1}: ${what}`);
    if (!isObject(o)) throw bad('a line must be a JSON object');
    if (o.kind === 'message') {
      const m = o.message;
      if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant'))
        throw bad('a message needs a role user or assistant');
      if (typeof m.content !== 'string' && !Array.isArray(m.content)) throw bad('content must be a string or an array');
      out.push(o as unknown as MessageRecord);
    } else if (o.kind === 'usage') {
      if (typeof o.model !== 'string') throw bad('a usage record needs a model');
      if (o.usage !== null && o.usage !== undefined && !isObject(o.usage)) throw bad('usage must be an object or null');
      out.push(o as unknown as UsageRecord);
    } else if (o.kind === 'compaction') {
      if (typeof o.summary !== 'string') throw bad('a compaction record needs a summary');
      out.push(o as unknown as CompactionRecord);
    } else throw bad(`unknown kind ${JSON.stringify(o.kind)}`);
  });
  return out;
}

/** One JSONL line per record, each ending in a newline; a usage record's `plan` is left out. */
export function serializeRecords(records: readonly TranscriptRecord[]): string {
  const lines = records.map((r) => {
    if (r.kind !== 'usage') return JSON.stringify(r);
    const { plan: _plan, ...written } = r;
    return JSON.stringify(written);
  });
  return lines.join('\n') + '\n';
}
