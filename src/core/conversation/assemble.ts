import { injectionProblem, renderInjectionBlock, sourceOf } from './injections';
import type {
  Block,
  ConversationState,
  ImageBlock,
  ImageMediaType,
  Injection,
  Message,
  TextBlock,
  ToolResultBlock,
  ToolResultContent,
} from './conversationModel';
import { planPaste, type Spill } from './paste';
import { sniffImageType } from './imageSize';
import type { Clock, IdSource } from '../platform/platformPorts';

/** A tool's answer to one tool_use of the last assistant message. */
export interface ToolResultInput {
  readonly toolUseId: string;
  readonly content: ToolResultContent;
  readonly isError?: boolean;
}

/** What goes into the next user message. With no `userText`, it is an agent-loop message. */
export interface TurnInput {
  readonly userText?: string;
  readonly toolResults?: readonly ToolResultInput[];
  /**
   * Images the user pasted with the words (base64, already within the API's limits: the
   * composer scales them and the protocol checks them). Sent before the words, as the vision
   * guide advises ("image-then-text"); they need words to go with.
   */
  readonly images?: ReadonlyArray<{ readonly mediaType: ImageMediaType; readonly data: string }>;
  /** Where an oversized paste is to be saved (the session folder). */
  readonly pasteDirectory: string;
}

/** Why a user message could not be assembled. Nothing in the state was changed. */
export type AssembleErrorCode =
  'empty_message' | 'orphan_tool_result' | 'duplicate_tool_result' | 'unanswered_tool_use' | 'awaiting_answer';

/** A clear, user-facing reason, with a code the UI can act on. */
export interface AssembleError {
  readonly code: AssembleErrorCode;
  readonly message: string;
}

/** A successfully assembled user message and what the caller must do with it. */
export interface Assembled {
  readonly message: Message;
  /** Files to write before sending (oversized pastes). */
  readonly spills: readonly Spill[];
  /** The injections that went into this message (for the UI: "what went with my message"). */
  readonly injected: readonly Injection[];
  /** Injections left out, each with the reason. */
  readonly dropped: ReadonlyArray<{ readonly injection: Injection; readonly reason: string }>;
}

/** Result of assembling: a value, never a throw. */
export type AssembleResult =
  { readonly ok: true; readonly value: Assembled } | { readonly ok: false; readonly error: AssembleError };

/** Ports assembly needs: a clock and an id source. */
export interface AssembleDeps {
  readonly clock: Clock;
  readonly ids: IdSource;
}

/**
 * Builds the next user message: tool results first (in the order of the tool_use blocks
 * they answer), then each pending injection wrapped in its tag, then the user's words.
 * With no user words (agent loop) only tool results and injections. Errors, as values:
 * empty input, a tool result with no matching tool_use (orphan), two results for one call,
 * a tool_use left unanswered, or a user message while the last one still awaits its answer.
 * An input over the paste threshold is replaced by a reference to a file (see planPaste).
 */
export function assembleUserMessage(state: ConversationState, input: TurnInput, deps: AssembleDeps): AssembleResult {
  const last = state.messages.at(-1);
  if (last?.role === 'user') {
    return fail(
      'awaiting_answer',
      'The previous message has not been answered yet; wait for the answer or retry it before sending another.',
    );
  }
  const userText = input.userText ?? '';
  const hasWords = userText.trim().length > 0;
  const results = input.toolResults ?? [];
  const images = input.images ?? [];
  if (!hasWords && images.length > 0)
    return fail('empty_message', 'Add a few words to go with the image: what should Claude do with it?');
  if (!hasWords && results.length === 0) {
    return fail(
      'empty_message',
      userText.length > 0
        ? 'The message contains only whitespace; type something to send.'
        : 'The message is empty; type something to send.',
    );
  }

  const pendingUses = last ? last.blocks.filter((b) => b.type === 'tool_use') : [];
  const order = new Map(pendingUses.map((b, i) => [b.type === 'tool_use' ? b.id : '', i]));
  const seen = new Set<string>();
  for (const r of results) {
    if (!order.has(r.toolUseId)) {
      return fail(
        'orphan_tool_result',
        `A tool result answers ${r.toolUseId}, but the last assistant message made no such tool call; the result was not sent.`,
      );
    }
    if (seen.has(r.toolUseId))
      return fail('duplicate_tool_result', `Two tool results answer ${r.toolUseId}; only one may.`);
    seen.add(r.toolUseId);
  }
  const unanswered = pendingUses.filter((b) => b.type === 'tool_use' && !seen.has(b.id));
  if (unanswered.length > 0) {
    const ids = unanswered.map((b) => (b.type === 'tool_use' ? `${b.name} (${b.id})` : '')).join(', ');
    return fail(
      'unanswered_tool_use',
      `Every tool call must be answered before the conversation goes on; unanswered: ${ids}.`,
    );
  }

  const now = deps.clock.now();
  const blocks: Block[] = [];
  const sorted = [...results].sort((a, b) => (order.get(a.toolUseId) ?? 0) - (order.get(b.toolUseId) ?? 0));
  for (const r of sorted) blocks.push(toolResultBlock(r, now, deps.ids));

  const injected: Injection[] = [];
  const dropped: Array<{ injection: Injection; reason: string }> = [];
  for (const injection of state.pending) {
    const problem = injectionProblem(injection);
    if (problem) {
      dropped.push({ injection, reason: problem });
      continue;
    }
    injected.push(injection);
    const rendered = renderInjectionBlock(injection);
    const built = textBlock(
      rendered.text,
      sourceOf(injection),
      injection.kind === 'system_reminder' ? 0 : 3,
      now,
      deps.ids,
      true,
      injection.kind === 'ide_selection' && injection.pinned === true,
    );
    const block = { ...built, meta: { ...built.meta, injection: rendered.ref } };
    blocks.push(
      injection.kind === 'system_reminder' && injection.origin !== undefined
        ? { ...block, meta: { ...block.meta, origin: injection.origin } }
        : block,
    );
  }

  for (const image of images) blocks.push(imageBlock(image, now, deps.ids));

  const spills: Spill[] = [];
  if (hasWords) {
    const plan = planPaste(userText, {
      thresholdChars: state.config.pasteThresholdChars,
      directory: input.pasteDirectory,
      fileName: `${deps.ids.next('paste')}.txt`,
    });
    if (plan.spill) spills.push(plan.spill);
    blocks.push(textBlock(plan.text, 'user', 1, now, deps.ids, false));
  }

  const lastTurn = state.messages.at(-1)?.turn ?? 0;
  const message: Message = {
    id: deps.ids.next('msg'),
    role: 'user',
    blocks,
    turn: hasWords ? lastTurn + 1 : Math.max(1, lastTurn),
  };
  return { ok: true, value: { message, spills, injected, dropped } };
}

/**
 * Appends an assembled user message and clears the pending injections it consumed.
 * Injections that were dropped as invalid are cleared too (their reasons were reported).
 */
export function applyUserMessage(state: ConversationState, assembled: Assembled): ConversationState {
  return { ...state, messages: [...state.messages, assembled.message], pending: [] };
}

function toolResultBlock(r: ToolResultInput, now: number, ids: IdSource): ToolResultBlock {
  const empty = typeof r.content === 'string' ? r.content.trim().length === 0 : r.content.length === 0;
  return {
    type: 'tool_result',
    toolUseId: r.toolUseId,
    // The API rejects empty text; an empty result is stated, not dropped.
    content: empty ? '(the tool returned no output)' : r.content,
    ...(r.isError ? { isError: true } : {}),
    meta: {
      id: ids.next('blk'),
      tier: 3,
      source: 'tool',
      createdAt: now,
      toolUseId: r.toolUseId,
      pinned: false,
      compactable: true,
    },
  };
}

/** A pasted image: the user's (tier 1), compactable (a summary names it; the words stay). */
function imageBlock(
  image: { readonly mediaType: ImageMediaType; readonly data: string },
  now: number,
  ids: IdSource,
): ImageBlock {
  return {
    type: 'image',
    // As its bytes say: a dropped file's type comes from its name's extension.
    mediaType: sniffImageType(image.data) ?? image.mediaType,
    data: image.data,
    meta: { id: ids.next('blk'), tier: 1, source: 'user', createdAt: now, pinned: false, compactable: true },
  };
}

function textBlock(
  text: string,
  source: TextBlock['meta']['source'],
  tier: TextBlock['meta']['tier'],
  now: number,
  ids: IdSource,
  compactable: boolean,
  pinned = false,
): TextBlock {
  return { type: 'text', text, meta: { id: ids.next('blk'), tier, source, createdAt: now, pinned, compactable } };
}

function fail(code: AssembleErrorCode, message: string): AssembleResult {
  return { ok: false, error: { code, message } };
}
