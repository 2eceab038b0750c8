/** Sample sessions for the session tests: a conversation, its header and entries, and compaction entries. */
import type { Message, SummaryBlock } from '../../../src/core/conversation/conversationModel';
import {
  SESSION_FORMAT,
  SESSION_VERSION,
  type CompactionEntry,
  type HeaderEntry,
  type MessageEntry,
  type SessionEntry,
  type UsageEntry,
} from '../../../src/core/session/entries';
import { Build } from './builders';

/** A small sound conversation: words, a tool call and its result, an answer. Shared by the session tests. */
export function sampleConversation(b = new Build('s')): Message[] {
  const call = b.toolUse('read_file', { path: 'src/a.ts' });
  return [
    b.message(
      'user',
      [b.text('<ide_selection>line 1</ide_selection>', 'ide_selection'), b.text('please read a.ts\nand explain')],
      1,
    ),
    b.message('assistant', [b.text('Reading it.', 'assistant'), call], 1),
    b.message('user', [b.toolResult(call.id, 'export const a = 1;\n')], 1),
    b.message('assistant', [b.text('It exports a = 1.', 'assistant')], 1),
    b.message('user', [b.text('thanks — now in French?')], 2),
    b.message('assistant', [b.text('Il exporte a = 1.', 'assistant')], 2),
  ];
}

/** A usage line of request 1 in turn 1 on claude-sonnet-4-5: `input`, `output` and the other fields as given. */
export function usageEntry(
  costUsd: number,
  fields: { input?: number; output?: number; read?: number; write?: number; estimated?: number } = {},
): UsageEntry {
  const input = fields.input ?? 10;
  return {
    type: 'usage',
    at: 1,
    requestIndex: 1,
    turn: 1,
    model: 'claude-sonnet-4-5',
    usage: {
      input_tokens: input,
      output_tokens: fields.output ?? 5,
      cache_read_input_tokens: fields.read ?? 0,
      cache_creation_input_tokens: fields.write ?? 0,
    },
    estimatedInputTokens: fields.estimated ?? input,
    costUsd,
  };
}

/** A header as the store writes it. */
export function sampleHeader(sessionId = '2026-11-21T23-59-00-abc123'): HeaderEntry {
  return {
    type: 'header',
    format: SESSION_FORMAT,
    version: SESSION_VERSION,
    sessionId,
    createdAt: 1_700_000_000_000,
    model: 'claude-sonnet-4-5',
    workspace: 'demo',
  };
}

/** Header + one message entry per message, with increasing times. */
export function entriesOf(messages: readonly Message[], header = sampleHeader()): SessionEntry[] {
  return [
    header,
    ...messages.map((message, i): MessageEntry => ({
      type: 'message',
      at: header.createdAt + 1000 * (i + 1),
      message,
    })),
  ];
}

/** Every text of a user-source text block, in order. */
export function userWords(messages: readonly Message[]): string[] {
  return messages.flatMap((m) =>
    m.blocks.flatMap((b) => (b.type === 'text' && b.meta.source === 'user' ? [b.text] : [])),
  );
}

/**
 * The summary block `text` of compaction `compactionId`, with meta id `metaId`, as the
 * compactor writes it: of turns 1 to 1, tier 0, created at 9, neither pinned nor compactable.
 */
export function summaryBlock(compactionId: string, text: string, metaId: string): SummaryBlock {
  return {
    type: 'summary',
    text,
    compactionId,
    turnRange: [1, 1],
    meta: { id: metaId, tier: 0, source: 'compactor', createdAt: 9, pinned: false, compactable: false },
  };
}

/**
 * What a summarise compaction `compactionId` of turn 1 puts in its place, built by `b`: a user
 * message with the summary `text` (meta id `blk_sum`), then the assistant's "Understood.".
 */
export function summaryReplacement(b: Build, compactionId: string, text: string): Message[] {
  return [
    b.message('user', [summaryBlock(compactionId, text, 'blk_sum')], 1),
    b.message('assistant', [b.text('Understood.', 'assistant')], 1),
  ];
}

/** The fields a test of a compaction entry states; {@link compactionEntry} fills in the rest. */
export type CompactionFields = Pick<
  CompactionEntry,
  'id' | 'originals' | 'replacement' | 'tokensBefore' | 'tokensAfter'
> &
  Partial<CompactionEntry>;

/**
 * A `compaction` entry that replaced `originals` (`replacedIds`: their ids) with `replacement`,
 * with the rest of a free, instant summarise run: at 10, manual, layer and strategy
 * `summarise`, no regions, cost 0, duration 0, no fallbacks. Any field given replaces its default.
 */
export function compactionEntry(fields: CompactionFields): CompactionEntry {
  return {
    type: 'compaction',
    at: 10,
    trigger: 'manual',
    replacedIds: fields.originals.map((m) => m.id),
    layer: 'summarise',
    strategy: 'summarise',
    regions: [],
    costUsd: 0,
    durationMs: 0,
    fallbacks: [],
    ...fields,
  };
}

/**
 * An orphaned compaction `id` (see {@link compactionEntry}), built by `b`: its originals, the
 * user's `words` and the assistant's `answer` in turn 1, are in no conversation (their only
 * copy); its replacement is a user message with the summary "Earlier talk."; 500 → 20 tokens.
 */
export function orphanedCompaction(b: Build, id: string, words: string, answer: string): CompactionEntry {
  const lost = [b.message('user', [b.text(words)], 1), b.message('assistant', [b.text(answer, 'assistant')], 1)];
  return compactionEntry({
    id,
    originals: lost,
    replacement: [b.message('user', [summaryBlock(id, 'Earlier talk.', `blk_${id}_sum`)], 1)],
    tokensBefore: 500,
    tokensAfter: 20,
  });
}

/**
 * `n` one-text-block messages that all share the message id `msg_same` and the block id
 * `blk_same` (the damage of a bad writer), the i-th of role `role(i)` (by default user and
 * assistant in turn), all in turn 1, with the text `m<i>`.
 */
export function messagesSharingOneId(
  n: number,
  role: (i: number) => Message['role'] = (i) => (i % 2 === 0 ? 'user' : 'assistant'),
): Message[] {
  return Array.from({ length: n }, (_, i) => ({
    id: 'msg_same',
    role: role(i),
    turn: 1,
    blocks: [
      {
        type: 'text',
        text: `m${i}`,
        meta: {
          id: 'blk_same',
          tier: 1,
          source: role(i),
          createdAt: 0,
          pinned: false,
          compactable: role(i) !== 'user',
        },
      },
    ],
  }));
}
