/**
 * Raw token counts of blocks, messages, system prompts and tool schemas: what each costs as
 * the API sees it, in the units of the session's tokenizer (text) plus API tokens (images).
 * Calibration to Claude's real counts is the estimator's job (estimator.ts); this module
 * only counts, and counts each thing once:
 *
 * - a block's total is memoised in `block.meta.tokenCount` the first time it is counted and
 *   never recomputed (blocks are immutable values; a changed block is a new block);
 * - a message's sum is memoised in a WeakMap keyed by the Message object;
 * - a tool schema's count in a WeakMap keyed by the ToolSchema object.
 *
 * The memo does not record which tokenizer filled it: use one tokenizer per session (the host
 * loads it before counting anything; the bench parses a fresh copy of a transcript per
 * tokenizer).
 *
 * Framing constants (per block, per message, per tool parameter) approximate the wrapping
 * the API adds around content, in raw units. They were fitted (robust regression, then
 * rounded) on the real fixture's deltas reported(k+1) − reported(k): a tool call + result
 * pair costs ~45 API tokens of wrapping, ~7 more per parameter, a message ~3. The
 * calibration factor absorbs what is left.
 */
import type { Block, Message, TextBlock, ToolResultContent, ToolSchema } from '../conversation/conversationModel';
import type { Tokenizer } from '../platform/platformPorts';
import { toolReferences } from '../conversation/serverTools';
import { imageTokens } from '../conversation/imageSize';

/** Raw framing tokens the API adds around each message (role markers). */
export const MESSAGE_FRAMING = 3;
/** Raw framing tokens around a text, thinking or summary block. */
export const TEXT_FRAMING = 1;
/** Raw framing tokens around a tool call (the function-call wrapper)… */
export const TOOL_USE_FRAMING = 21;
/** …and around each of its top-level parameters. */
export const TOOL_PARAM_FRAMING = 6;
/** Raw framing tokens around a tool result (the function-result wrapper). */
export const TOOL_RESULT_FRAMING = 17;
/** Raw framing tokens around an image, on top of its pixel cost. */
export const IMAGE_FRAMING = 5;
/** Raw framing tokens around each tool schema. */
export const TOOL_SCHEMA_FRAMING = 10;

/**
 * A raw count split by how it is calibrated: `text` is in tokenizer units and gets the
 * learned factor; `fixed` is already in API tokens (images, priced by their pixel size).
 */
export interface RawTokens {
  readonly text: number;
  readonly fixed: number;
}

/** The zero count. */
export const NO_TOKENS: RawTokens = Object.freeze({ text: 0, fixed: 0 });

/** Sum of two raw counts. */
export function addTokens(a: RawTokens, b: RawTokens): RawTokens {
  return { text: a.text + b.text, fixed: a.fixed + b.fixed };
}

/** Difference of two raw counts (may be negative). */
export function subTokens(a: RawTokens, b: RawTokens): RawTokens {
  return { text: a.text - b.text, fixed: a.fixed - b.fixed };
}

/**
 * A tool call as the model sees it: the tool name, then each top-level parameter as its
 * name and its value — strings raw (the API does not show them JSON-escaped; counting
 * `\n` and `\"` escapes inflated counts by ~25 % on the fixture), other values as JSON.
 */
function toolUseText(name: string, input: unknown): { text: string; params: number } {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { text: `${name}\n${JSON.stringify(input) ?? ''}`, params: 1 };
  }
  const parts = [name];
  let params = 0;
  for (const [key, value] of Object.entries(input)) {
    params++;
    parts.push(key, typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
  }
  return { text: parts.join('\n'), params };
}

function toolResultRaw(content: ToolResultContent, tokenizer: Tokenizer): number {
  if (typeof content === 'string') return tokenizer.count(content);
  let n = 0;
  for (const part of content) {
    n += part.type === 'text' ? tokenizer.count(part.text) : IMAGE_FRAMING + imageTokens(part.data);
  }
  return n;
}

function countBlock(block: Block, tokenizer: Tokenizer): number {
  switch (block.type) {
    case 'text':
      return TEXT_FRAMING + tokenizer.count(block.text);
    case 'thinking':
      // A redacted block's size is unknown (its data is encrypted): ~4 characters a token, as the fake server counts it.
      if (block.redactedData !== undefined) return TEXT_FRAMING + Math.ceil(block.redactedData.length / 4);
      // Only the thinking text; the signature is opaque and not charged as input text.
      return TEXT_FRAMING + tokenizer.count(block.thinking);
    case 'summary':
      return TEXT_FRAMING + tokenizer.count(block.text);
    case 'tool_use': {
      const { text, params } = toolUseText(block.name, block.input);
      return TOOL_USE_FRAMING + TOOL_PARAM_FRAMING * params + tokenizer.count(text);
    }
    case 'tool_result':
      return TOOL_RESULT_FRAMING + toolResultRaw(block.content, tokenizer);
    case 'image':
      return IMAGE_FRAMING + imageTokens(block.data);
    case 'server_tool':
      // Sent back verbatim: counted as its JSON with a tool block's framing (a call like a
      // tool_use, a result like a tool_result). A tool_reference also makes the API load the
      // referenced definition, which the tool loading plan counts with the tools (toolLoading.ts).
      return (
        (block.raw.type === 'server_tool_use' ? TOOL_USE_FRAMING : TOOL_RESULT_FRAMING) +
        tokenizer.count(JSON.stringify(block.raw))
      );
  }
}

/**
 * What `block` costs as the API sees it, raw: content in tokenizer units plus framing, and
 * images (also inside tool results) by their pixel size in API tokens. Counted once:
 * the result is stored in `block.meta.tokenCount` and returned from there afterwards, even
 * if another tokenizer is passed.
 */
export function blockRawTokens(block: Block, tokenizer: Tokenizer): number {
  const memo = block.meta.tokenCount;
  if (memo !== undefined) return memo;
  const n = countBlock(block, tokenizer);
  block.meta.tokenCount = n;
  return n;
}

/**
 * The part of a block's count that is already in API tokens (its images). Reads image
 * headers only; never calls a tokenizer.
 */
export function blockFixedTokens(block: Block): number {
  if (block.type === 'image') return imageTokens(block.data);
  if (block.type !== 'tool_result' || typeof block.content === 'string') return 0;
  let n = 0;
  for (const part of block.content) if (part.type === 'image') n += imageTokens(part.data);
  return n;
}

const messageMemo = new WeakMap<Message, RawTokens>();

/**
 * Raw tokens of a whole message: its blocks (see `blockRawTokens`) plus message framing,
 * split into calibrated text and fixed image tokens. Memoised per Message object, so a
 * message already counted costs one WeakMap lookup.
 */
export function messageRawTokens(message: Message, tokenizer: Tokenizer): RawTokens {
  const memo = messageMemo.get(message);
  if (memo) return memo;
  let total = MESSAGE_FRAMING;
  let fixed = 0;
  for (const block of message.blocks) {
    total += blockRawTokens(block, tokenizer);
    fixed += blockFixedTokens(block);
  }
  const result: RawTokens = Object.freeze({ text: total - fixed, fixed });
  messageMemo.set(message, result);
  return result;
}

/**
 * Raw tokens of a message's thinking blocks (signed, unsigned and redacted alike; each
 * memoised on its block): what the estimator leaves out for thinking the API strips.
 */
export function messageThinkingRawTokens(message: Message, tokenizer: Tokenizer): number {
  let n = 0;
  for (const block of message.blocks) if (block.type === 'thinking') n += blockRawTokens(block, tokenizer);
  return n;
}

/** Raw tokens of the system prompt blocks (each memoised on its block). */
export function systemRawTokens(system: readonly TextBlock[], tokenizer: Tokenizer): RawTokens {
  let text = 0;
  for (const block of system) text += blockRawTokens(block, tokenizer);
  return { text, fixed: 0 };
}

const toolMemo = new WeakMap<ToolSchema, number>();

/** Raw tokens of one tool schema: name, description, JSON input schema and framing. Memoised per object. */
export function toolSchemaRawTokens(tool: ToolSchema, tokenizer: Tokenizer): number {
  const memo = toolMemo.get(tool);
  if (memo !== undefined) return memo;
  const n =
    TOOL_SCHEMA_FRAMING + tokenizer.count(`${tool.name}\n${tool.description}\n${JSON.stringify(tool.inputSchema)}`);
  toolMemo.set(tool, n);
  return n;
}

/**
 * Raw tokens of the tool definitions the model sees up front (each memoised per object): a
 * deferred tool is not in the prompt until a tool search references it
 * (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching:
 * "Deferred tools are not included in the system-prompt prefix"), so it is left out here and
 * counted where it is referenced ({@link referencedToolsRawTokens}); the tool search tool that
 * serialize adds when any tool is deferred is counted as a small schema.
 */
export function toolsRawTokens(tools: readonly ToolSchema[], tokenizer: Tokenizer): RawTokens {
  let text = 0;
  let deferred = false;
  for (const tool of tools) {
    if (tool.deferLoading === true) deferred = true;
    else text += toolSchemaRawTokens(tool, tokenizer);
  }
  if (deferred) text += toolSearchRawTokens(tokenizer);
  return { text, fixed: 0 };
}

/** Raw tokens the tool search tool's definition is counted as (serialize adds it when any tool is deferred). */
export function toolSearchRawTokens(tokenizer: Tokenizer): number {
  return TOOL_SCHEMA_FRAMING + tokenizer.count(TOOL_SEARCH_DEFINITION);
}

/** What the tool search tool's definition is counted as (the API does not say what it adds). */
const TOOL_SEARCH_DEFINITION = 'tool_search_tool_regex\nSearch the deferred tools by a regular expression.';

const referencesMemo = new WeakMap<Message, readonly string[]>();

/**
 * Raw tokens of the deferred tool definitions a message's tool search results reference: the
 * API loads each referenced definition inline where the reference is, so the message costs
 * them (each tool counted once per message, only when it is deferred in `tools`).
 */
export function referencedToolsRawTokens(message: Message, tools: readonly ToolSchema[], tokenizer: Tokenizer): number {
  let names = referencesMemo.get(message);
  if (names === undefined) {
    const found = new Set<string>();
    for (const b of message.blocks) if (b.type === 'server_tool') for (const n of toolReferences(b.raw)) found.add(n);
    names = [...found];
    referencesMemo.set(message, names);
  }
  let n = 0;
  for (const name of names) {
    const tool = tools.find((t) => t.name === name && t.deferLoading === true);
    if (tool) n += toolSchemaRawTokens(tool, tokenizer);
  }
  return n;
}
