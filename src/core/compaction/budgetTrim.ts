/**
 * Budget trim: before each request, as the window fills (50 %, then 70 % by default), older
 * tool results — all but the newest three — are cut head + tail at line breaks to 30 000,
 * then 15 000 characters, with a notice. Cheap, no LLM, one reversible record. Pure.
 */
import type { ConversationState, ToolResultContent } from '../conversation/conversationModel';
import { formatCount } from '../text/counts';
import { GUARD_DEFAULTS } from './guardDefaults';
import {
  commitResultEdits,
  isPlaceholder,
  olderEditableResults,
  type LayerContext,
  type LayerResult,
} from './layerContext';
import { cutMiddle } from './toolResultGuard';

const NOTICE_RE = /\[… ([\d,]+) characters trimmed to save context; run the tool again for the full output …\]/;

/** The notice that stands where `chars` characters of a tool result were trimmed. */
export function trimNotice(chars: number): string {
  return `[… ${formatCount(chars)} characters trimmed to save context; run the tool again for the full output …]`;
}

/**
 * Characters an older tool result may keep at `utilisation` (the highest budget step reached,
 * thresholds inclusive), or undefined below the first step.
 */
export function budgetTarget(utilisation: number): number | undefined {
  let target: number | undefined;
  for (const step of GUARD_DEFAULTS.budgetSteps) if (utilisation >= step.utilisation) target = step.maxChars;
  return target;
}

/**
 * `text` unchanged when it fits in `maxChars`; otherwise its head and tail (cut at line
 * breaks when one is near, never inside a surrogate pair) around a {@link trimNotice}, the
 * whole within `maxChars`. A text trimmed before is trimmed around its earlier notice, and
 * the new notice counts everything trimmed so far. Idempotent for the same `maxChars`.
 */
export function trimText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const m = NOTICE_RE.exec(text);
  if (!m || m[1] === undefined) return cutMiddle(text, maxChars, (c) => trimNotice(c.cutChars)).text;
  const before = text.slice(0, m.index > 0 && text[m.index - 1] === '\n' ? m.index - 1 : m.index);
  let after = text.slice(m.index + m[0].length);
  if (after.startsWith('\n')) after = after.slice(1);
  const already = Number(m[1].replace(/,/g, ''));
  return cutMiddle(before + after, maxChars, (c) => trimNotice(c.cutChars), { at: before.length, chars: already }).text;
}

/** A result's content with each text part trimmed to `maxChars` (the same object when none needed it). */
export function trimContent(content: ToolResultContent, maxChars: number): ToolResultContent {
  if (typeof content === 'string') return trimText(content, maxChars);
  let changed = false;
  const parts = content.map((p) => {
    if (p.type !== 'text' || p.text.length <= maxChars) return p;
    changed = true;
    return { type: 'text' as const, text: trimText(p.text, maxChars) };
  });
  return changed ? parts : content;
}

/**
 * The budget-trim layer. At or above a budget step's utilisation, every older tool result
 * (all but the newest `keepRecentResults`, never pinned ones, never placeholders) whose text
 * is over the step's size is trimmed to it (see {@link trimText}); tool_use blocks, `isError`
 * and everything else stay. Returns the input state and no record when nothing changes (so
 * running it twice at the same utilisation is a no-op), else one record of layer
 * `budget-trim`, trigger `budget` (or `ctx.trigger`).
 */
export function budgetTrim(state: ConversationState, ctx: LayerContext): LayerResult {
  const target = budgetTarget(ctx.utilisation);
  if (target === undefined) return { state };
  const edits = new Map<string, ToolResultContent>();
  for (const site of olderEditableResults(state.messages, GUARD_DEFAULTS.keepRecentResults)) {
    if (isPlaceholder(site.block.content)) continue;
    const content = trimContent(site.block.content, target);
    if (content !== site.block.content) edits.set(site.block.meta.id, content);
  }
  return commitResultEdits(state, ctx, edits, { layer: 'budget-trim', trigger: 'budget' });
}
