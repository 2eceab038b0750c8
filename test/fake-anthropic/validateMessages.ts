/**
 * Conversation-level rules of `messages`: non-empty, first message from the user (or the
 * compaction block of a compaction on demand), roles
 * alternating (the real API merges consecutive same-role messages; here that is refused,
 * because for this project it signals a pipeline bug), unique tool_use ids ("`tool_use` ids
 * must be unique"), every tool_use answered by a tool_result at the start of the very next
 * user message (the API's own wording below), and no final assistant message for Claude 4.6+
 * models (prefill removed). Empty and whitespace-only text is refused anywhere, a little
 * stricter than the API (which takes whitespace text beside other content).
 */
import { refusesPrefill } from './models';
import { invalid, isObject } from './reject';
import { checkBlock, checkText } from './validateBlocks';

type Role = 'user' | 'assistant';

interface Checked {
  readonly role: Role;
  /** The message's blocks (a string content becomes one text block). */
  readonly blocks: readonly Record<string, unknown>[];
}

/**
 * Checks `messages` (already known to be an array) sent to `model`. `opts.compaction`: a
 * compaction request, which summarises what it is sent and samples nothing, so it may end on a
 * finished assistant turn (https://platform.claude.com/docs/en/build-with-claude/compaction-keep-recent-turns;
 * an unfinished one is compactionRequest.ts's to refuse).
 */
export function checkMessages(
  messages: readonly unknown[],
  model?: string,
  opts: { readonly compaction?: boolean } = {},
): void {
  if (messages.length === 0) invalid('messages_nonempty', 'messages: at least one message is required');
  const checked = messages.map((m, i) => checkMessage(m, i, i === messages.length - 1));
  checkRoles(checked);
  // A compaction request ending on an unfinished assistant turn gets its own error (compactionRequest.ts).
  checkToolPairs(opts.compaction && checked.at(-1)?.role === 'assistant' ? checked.slice(0, -1) : checked);
  // Claude 4.6 models refuse a final assistant message (a prefill): "Prefilling assistant
  // messages returns a 400 error on Claude 4.6 models" (platform.claude.com, migration guide,
  // "Prefill removal"); the API's message is the one below.
  if (checked.at(-1)?.role === 'assistant' && !opts.compaction && model !== undefined && refusesPrefill(model)) {
    invalid(
      'prefill_unsupported',
      'This model does not support assistant message prefill. The conversation must end with a user message.',
    );
  }
}

function checkMessage(m: unknown, i: number, isLast: boolean): Checked {
  const loc = `messages.${i}`;
  if (!isObject(m)) invalid('message', `${loc}: Input should be a valid dictionary`);
  for (const key of Object.keys(m)) {
    if (key !== 'role' && key !== 'content') invalid('extra_field', `${loc}.${key}: Extra inputs are not permitted`);
  }
  const role = m.role;
  if (role !== 'user' && role !== 'assistant') invalid('role', `${loc}.role: Input should be 'user' or 'assistant'`);
  const content = m.content;
  if (content === undefined) invalid('message', `${loc}.content: Field required`);
  let blocks: Record<string, unknown>[];
  if (typeof content === 'string') {
    if (!(isLast && role === 'assistant')) checkText(content, loc);
    blocks = content === '' ? [] : [{ type: 'text', text: content }];
  } else if (Array.isArray(content)) {
    if (content.length === 0 && !(isLast && role === 'assistant')) {
      invalid(
        'empty_content',
        `${loc}: all messages must have non-empty content except for the optional final assistant message`,
      );
    }
    content.forEach((b: unknown, j) => checkBlock(b, `${loc}.content.${j}`, role));
    blocks = content as Record<string, unknown>[];
  } else {
    invalid('message', `${loc}.content: Input should be a valid string or a valid list`);
  }
  if (isLast && role === 'assistant') checkFinalAssistant(blocks);
  return { role, blocks };
}

function checkFinalAssistant(blocks: readonly Record<string, unknown>[]): void {
  const last = blocks.at(-1);
  if (last?.type === 'text' && typeof last.text === 'string' && /\s$/.test(last.text)) {
    invalid('final_assistant_whitespace', 'messages: final assistant content cannot end with trailing whitespace');
  }
}

function checkRoles(messages: readonly Checked[]): void {
  // The block a compaction request returned goes first, in its assistant message (compaction on demand).
  const first = messages[0];
  if (first?.role !== 'user' && first?.blocks[0]?.type !== 'compaction')
    invalid('first_user', 'messages: first message must use the "user" role');
  for (let i = 1; i < messages.length; i++) {
    const role = messages[i]?.role;
    if (role === messages[i - 1]?.role) {
      invalid(
        'roles_alternate',
        `messages.${i}: roles must alternate between "user" and "assistant", but found multiple "${role}" roles in a row`,
      );
    }
  }
}

function toolUseIds(m: Checked | undefined): string[] {
  return (m?.blocks ?? []).flatMap((b) => (b.type === 'tool_use' && typeof b.id === 'string' ? [b.id] : []));
}

function checkToolPairs(messages: readonly Checked[]): void {
  const seen = new Set<string>();
  messages.forEach((m, i) => {
    m.blocks.forEach((b, j) => {
      if (b.type !== 'tool_use' || typeof b.id !== 'string') return;
      if (seen.has(b.id)) invalid('tool_use_unique', `messages.${i}.content.${j}: \`tool_use\` ids must be unique`);
      seen.add(b.id);
    });
  });
  messages.forEach((m, i) => {
    if (m.role === 'user') checkResultsOf(messages, i);
  });
  messages.forEach((m, i) => {
    const uses = m.role === 'assistant' ? toolUseIds(m) : [];
    if (uses.length === 0) return;
    const answered = new Set(
      (messages[i + 1]?.blocks ?? []).flatMap((b) =>
        b.type === 'tool_result' && typeof b.tool_use_id === 'string' ? [b.tool_use_id] : [],
      ),
    );
    const missing = uses.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      invalid(
        'tool_use_unanswered',
        `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    }
  });
}

/** The tool_result blocks of user message `i`: first, each answering a tool_use of message i-1, once. */
function checkResultsOf(messages: readonly Checked[], i: number): void {
  const blocks = messages[i]?.blocks ?? [];
  const uses = new Set(toolUseIds(messages[i - 1]));
  const answered = new Set<string>();
  let otherSeen = false;
  blocks.forEach((b, j) => {
    if (b.type !== 'tool_result') {
      otherSeen = true;
      return;
    }
    const loc = `messages.${i}.content.${j}`;
    const id = String(b.tool_use_id);
    if (uses.size === 0)
      invalid(
        'tool_result_orphan',
        `${loc}: tool_result block(s) provided when previous message does not contain any tool_use blocks`,
      );
    if (!uses.has(id)) {
      invalid(
        'tool_result_orphan',
        `${loc}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
      );
    }
    if (otherSeen)
      invalid(
        'tool_result_first',
        `${loc}: tool_result blocks must come first in the user message, before any other content`,
      );
    if (answered.has(id))
      invalid(
        'tool_result_duplicate',
        `${loc}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${id}`,
      );
    answered.add(id);
  });
}
