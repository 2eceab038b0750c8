import type { Block, ConversationState, Message } from './conversationModel';
import { opensWithOnDemandSummary } from './assistant';

/** One broken rule, with where it was found. */
export interface Violation {
  readonly rule:
    | 'first_message_not_user'
    | 'roles_not_alternating'
    | 'empty_message'
    | 'empty_text'
    | 'tool_use_unanswered'
    | 'tool_result_orphan'
    | 'tool_result_duplicate'
    | 'tool_result_not_first'
    | 'tool_use_id_duplicate'
    | 'block_in_wrong_role'
    | 'summary_compactable'
    | 'user_words_compactable'
    | 'duplicate_id'
    | 'turn_decreasing';
  readonly messageIndex: number;
  readonly detail: string;
}

/** Options for checkInvariants. */
export interface InvariantOptions {
  /** Allow the last assistant message's tool calls to be still unanswered (mid-loop). Default true. */
  readonly allowPendingToolUse?: boolean;
}

/**
 * Checks every structural rule the pipeline promises, on the whole state, and returns all
 * violations (empty when the state is sound). Rules: the first message is the user's (or
 * opens with the block of a compaction on demand);
 * roles alternate; no empty messages or whitespace-only text; every tool_use is answered by
 * exactly one tool_result in the next user message, and every tool_result answers a tool_use
 * of the previous assistant message; tool results come before other blocks; tool_use ids are
 * unique; blocks appear only in the role that may send them; summaries and the user's own
 * words are never compactable; message and block ids are unique; turns never decrease.
 */
export function checkInvariants(state: Pick<ConversationState, 'messages'>, opts: InvariantOptions = {}): Violation[] {
  const allowPending = opts.allowPendingToolUse ?? true;
  const out: Violation[] = [];
  const messages = state.messages;
  const messageIds = new Set<string>();
  const blockIds = new Set<string>();
  const toolUseIds = new Set<string>();
  messages.forEach((m, i) => {
    const v = (rule: Violation['rule'], detail: string) => out.push({ rule, messageIndex: i, detail });
    if (i === 0 && m.role !== 'user' && !opensWithOnDemandSummary(m))
      v('first_message_not_user', `message ${m.id} is ${m.role}`);
    const prev = messages[i - 1];
    if (prev && prev.role === m.role) v('roles_not_alternating', `${prev.id} and ${m.id} are both ${m.role}`);
    if (prev && m.turn < prev.turn) v('turn_decreasing', `${m.id} has turn ${m.turn} after ${prev.turn}`);
    if (messageIds.has(m.id)) v('duplicate_id', `message id ${m.id} repeats`);
    messageIds.add(m.id);
    if (m.blocks.length === 0) v('empty_message', `${m.id} has no blocks`);
    checkBlocks(m, v, blockIds, toolUseIds);
    if (m.role === 'assistant') {
      const next = messages[i + 1];
      if (!next && allowPending) return;
      const answered = new Set(
        next?.role === 'user' ? next.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.toolUseId] : [])) : [],
      );
      for (const b of m.blocks)
        if (b.type === 'tool_use' && !answered.has(b.id))
          v('tool_use_unanswered', `${b.name} (${b.id}) has no tool_result`);
    } else {
      const uses = new Set(
        prev?.role === 'assistant' ? prev.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : [],
      );
      const seen = new Set<string>();
      let sawOther = false;
      for (const b of m.blocks) {
        if (b.type !== 'tool_result') {
          sawOther = true;
          continue;
        }
        if (sawOther) v('tool_result_not_first', `tool_result for ${b.toolUseId} follows other content`);
        if (!uses.has(b.toolUseId))
          v('tool_result_orphan', `tool_result for ${b.toolUseId} answers no tool_use of the previous message`);
        if (seen.has(b.toolUseId)) v('tool_result_duplicate', `two tool_results for ${b.toolUseId}`);
        seen.add(b.toolUseId);
      }
    }
  });
  return out;
}

function checkBlocks(
  m: Message,
  v: (rule: Violation['rule'], detail: string) => void,
  blockIds: Set<string>,
  toolUseIds: Set<string>,
): void {
  for (const b of m.blocks) {
    if (blockIds.has(b.meta.id)) v('duplicate_id', `block id ${b.meta.id} repeats`);
    blockIds.add(b.meta.id);
    if (!roleMayHold(m.role, b)) v('block_in_wrong_role', `${b.type} in a ${m.role} message`);
    if ((b.type === 'text' || b.type === 'summary') && b.text.trim().length === 0)
      v('empty_text', `block ${b.meta.id} is empty`);
    if (b.type === 'summary' && b.meta.compactable)
      v('summary_compactable', `summary ${b.meta.id} is marked compactable`);
    if (b.type === 'text' && b.meta.source === 'user' && b.meta.compactable)
      v('user_words_compactable', `user text ${b.meta.id} is marked compactable`);
    if (b.type === 'tool_use') {
      if (toolUseIds.has(b.id)) v('tool_use_id_duplicate', `tool_use id ${b.id} repeats`);
      toolUseIds.add(b.id);
    }
  }
}

/**
 * Whether a message of `role` may hold block `b` (the API's rule): tool calls, thinking and
 * server tool blocks only the assistant's, tool results and images only the user's, text and
 * summaries both.
 */
export function roleMayHold(role: Message['role'], b: Block): boolean {
  switch (b.type) {
    case 'tool_use':
    case 'thinking':
    case 'server_tool':
      return role === 'assistant';
    case 'tool_result':
    case 'image':
      return role === 'user';
    case 'text':
    case 'summary':
      return true;
  }
}

/** Throws with every violation listed; for tests and debug builds only. */
export function assertInvariants(state: Pick<ConversationState, 'messages'>, opts?: InvariantOptions): void {
  const violations = checkInvariants(state, opts);
  if (violations.length > 0) {
    throw new Error(
      `Conversation invariants violated:\n${violations.map((x) => `- [${x.messageIndex}] ${x.rule}: ${x.detail}`).join('\n')}`,
    );
  }
}
