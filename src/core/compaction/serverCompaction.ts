/**
 * A server compaction (`compact_20260112`) as one of our compaction records, so it shows in
 * the Compactions view like ours, with its summary. Pure.
 *
 * The compaction page (https://platform.claude.com/docs/en/build-with-claude/compaction)
 * says the response starts with a `compaction` block and that on later requests "the API
 * automatically drops all message blocks prior to the compaction block". The client may
 * therefore leave those messages out: the record's originals are every message before the
 * answer that carries the block (as this client knows them — the server saw the same), and
 * its replacement is one short user message, so the request still starts with a user turn
 * (a dropped block either way) and our token estimate stops counting what the server dropped.
 *
 * Restore is refused (see `SERVER_RESTORE_REFUSAL`): the API ignores everything before the
 * compaction block, so putting the originals back would change nothing Claude sees and only
 * make our own estimate wrong. The originals stay readable in the Compactions view.
 */
import type { ConversationState, Message } from '../conversation/conversationModel';
import type { Clock, IdSource } from '../platform/platformPorts';
import type { CompactionRecord } from './types';
import type { AssistantContent } from '../conversation/assistant';

/** Why a server compaction cannot be restored (shown to the user). */
export const SERVER_RESTORE_REFUSAL =
  'A server compaction cannot be restored: the API ignores every message before its compaction block, so putting the originals back would change nothing Claude sees. Its original messages can still be opened in the Compactions view.';

/** Text of the user message that stands before a server compaction's answer. */
export const SERVER_COMPACTION_PLACEHOLDER = '[Earlier conversation compacted by the server; its summary follows.]';

/** Inputs besides the state. */
export interface ServerCompactionDeps {
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly tokensOf: (m: Message) => number;
  /** What the compaction iteration(s) cost, in US dollars. */
  readonly costUsd: number;
  /** The model that answered (and summarised). */
  readonly model: string;
  readonly strategy: string;
}

/**
 * When `answer` (the last message of `state`) carries a server compaction summary and
 * messages stand before it: the state with those messages replaced by the placeholder, and
 * the record (its id is the summary's `compactionId`). Undefined otherwise.
 */
export function serverCompactionRecord(
  state: ConversationState,
  answer: Message,
  deps: ServerCompactionDeps,
): { readonly state: ConversationState; readonly record: CompactionRecord } | undefined {
  const summary = answer.blocks.find((b) => b.type === 'summary' && b.server !== undefined);
  if (!summary || summary.type !== 'summary') return undefined;
  const index = state.messages.findIndex((m) => m.id === answer.id);
  if (index <= 0) return undefined;
  const originals = state.messages.slice(0, index);
  // Already compacted to the placeholder alone: nothing more to take out.
  if (originals.length === 1 && isPlaceholder(originals[0])) return undefined;
  const now = deps.clock.now();
  const firstTurn = originals[0]?.turn ?? answer.turn;
  const placeholder: Message = {
    id: deps.ids.next('msg'),
    role: 'user',
    turn: firstTurn,
    blocks: [
      {
        type: 'text',
        text: SERVER_COMPACTION_PLACEHOLDER,
        meta: {
          id: deps.ids.next('blk'),
          tier: 0,
          source: 'compactor',
          createdAt: now,
          pinned: false,
          compactable: false,
        },
      },
    ],
  };
  const tokensBefore = originals.reduce((n, m) => n + deps.tokensOf(m), 0);
  const tokensAfter = deps.tokensOf(placeholder);
  const record: CompactionRecord = {
    id: summary.compactionId,
    at: now,
    trigger: 'auto-soft',
    layer: 'server-compact',
    strategy: deps.strategy,
    regions: [
      {
        firstTurn,
        lastTurn: originals.at(-1)?.turn ?? firstTurn,
        messageIds: originals.map((m) => m.id),
        tokens: tokensBefore,
      },
    ],
    originals,
    replacement: [placeholder],
    summary: summary.text,
    tokensBefore,
    tokensAfter,
    model: deps.model,
    costUsd: deps.costUsd,
    durationMs: 0,
    fallbacks: [],
  };
  return { state: { ...state, messages: [placeholder, ...state.messages.slice(index)] }, record };
}

function isPlaceholder(m: Message | undefined): boolean {
  return (
    m?.role === 'user' &&
    m.blocks.length === 1 &&
    m.blocks[0]?.type === 'text' &&
    m.blocks[0].text === SERVER_COMPACTION_PLACEHOLDER
  );
}

/**
 * The longest server compaction summary adopted, in characters: the server writes it as an
 * answer, and no model answers more than 128k tokens (about 512k characters of text). A bigger
 * one is no summary the API wrote.
 */
export const MAX_SERVER_SUMMARY_CHARS = 512_000;

/**
 * An answer's content with its `compaction` blocks kept only when the request asked for server
 * compaction (`asked`: its context management held `compact_20260112`) and the summary is
 * within MAX_SERVER_SUMMARY_CHARS; `dropped` says why any was left out (for a notice). A proxy
 * or a hostile endpoint could otherwise replace the whole history with a block nobody asked for.
 */
export function acceptedServerCompaction(
  content: readonly AssistantContent[],
  asked: boolean,
): { readonly content: readonly AssistantContent[]; readonly dropped?: string } {
  const blocks = content.flatMap((c) => (c.type === 'compaction' ? [c] : []));
  if (blocks.length === 0) return { content };
  const tooLong = blocks.some((c) => c.content.length > MAX_SERVER_SUMMARY_CHARS);
  if (asked && !tooLong) return { content };
  return {
    content: content.filter((c) => c.type !== 'compaction'),
    dropped: asked
      ? `The answer carried a compaction summary over ${MAX_SERVER_SUMMARY_CHARS.toLocaleString('en-US')} characters; it was left out and the history kept.`
      : 'The answer carried a server compaction block this request did not ask for; it was left out and the history kept.',
  };
}
