/**
 * Round guard: the tool-result guard for a whole tool round. Each result is guarded on its
 * own as it arrives (toolResultGuard.ts: spilled over 30 KB, cut over 30 % of the window), but
 * a round of many parallel calls can still bring more than the window can hold beside the
 * rest of the conversation — 24 reads of 15 KB each are ~100k tokens, and compaction can never
 * shrink the newest round (a tool_use goes with its tool_result). So the round's results
 * together get a budget: what the hard threshold leaves beside the system prompt and tools,
 * every word of the user, pinned content, the calls themselves and room for a summary — the
 * least a compaction can leave. Over it, the largest results are spilled to files (a preview
 * and the path, so nothing is lost) until the round fits; if previews alone are still too
 * many, every result is cut to an equal share. Pure: the caller writes the spills.
 */
import type { ToolResultInput } from '../conversation/assemble';
import type { ConversationState, Message, TextBlock, ToolResultContent } from '../conversation/conversationModel';
import type { Spill } from '../conversation/paste';
import { imageDimensions, imageTokens } from '../conversation/imageSize';
import { formatCount, plural } from '../text/counts';
import { GUARD_DEFAULTS } from './guardDefaults';
import { fixedRequestTokens, hardTargetTokens, type CompactionSettings } from './policy';
import { isUserWords, newestWordsIndex } from './regions';
import { shortestWords } from './tailGuard';
import { cutToolResult, spillToolResult, type SpillOptions } from './toolResultGuard';

/** Room kept for the summary a compaction would write (at most this, at most 10 % of the hard target). */
export const ROUND_SUMMARY_ALLOWANCE_TOKENS = 4_000;

/** A round's budget is never below this many tokens (a window too small for even that overflows anyway). */
export const ROUND_MIN_BUDGET_TOKENS = 1_000;

/** A result is spilled only when it is longer than this many characters (a preview is ~2 000). */
const SPILL_WORTH_CHARS = Math.round(GUARD_DEFAULTS.previewChars * 1.5);

/** The least a result keeps when every result must be cut to an equal share. */
const MIN_SHARE_CHARS = 300;

/**
 * Tokens the results of the tool round about to arrive may hold together in `state` (its last
 * message is the assistant's calls): what a compaction at the hard threshold must reach
 * (hardTargetTokens), less the fixed part of the request (system prompt, tools, framing, by
 * `measure`), every user word (summaries quote them whole; an older long message as short as
 * the tail guard can cut it), pinned messages, the last message
 * (the calls) and room for a summary — under either summary policy, since a compaction at the
 * hard threshold folds earlier summaries in when it must. At least
 * {@link ROUND_MIN_BUDGET_TOKENS}.
 */
export function roundBudgetTokens(
  state: ConversationState,
  settings: CompactionSettings,
  tokensOf: (m: Message) => number,
  measure: (state: ConversationState) => number,
): number {
  const target = hardTargetTokens(state.config, settings);
  let kept =
    fixedRequestTokens(state, tokensOf, measure) + Math.min(ROUND_SUMMARY_ALLOWANCE_TOKENS, Math.round(0.1 * target));
  const last = state.messages.length - 1;
  const newestWords = newestWordsIndex(state.messages);
  state.messages.forEach((m, i) => {
    // Summaries are not kept: a rolling one is folded into the next, and so are stacked ones
    // at the hard threshold when the rest cannot make room (plan.ts, STACKED_FOLD_NOTE).
    if (i === last || m.blocks.some((b) => b.meta.pinned)) kept += tokensOf(m);
    else {
      // The user's older long messages count as what the tail guard can cut them to.
      const words = m.blocks
        .filter((b): b is TextBlock => isUserWords(b))
        .map((b) => (i < newestWords ? shortestWords(b) : b));
      if (words.length > 0) kept += tokensOf({ ...m, id: `${m.id}#user-words`, blocks: words });
    }
  });
  return Math.max(ROUND_MIN_BUDGET_TOKENS, Math.floor(target - kept));
}

/** Calibrated tokens of one tool result's content, as a result block of its own message. */
export function resultContentTokens(content: ToolResultContent, tokensOf: (m: Message) => number): number {
  const meta = {
    id: 'round-guard#r',
    tier: 3,
    source: 'tool',
    createdAt: 0,
    pinned: false,
    compactable: true,
  } as const;
  return tokensOf({
    id: 'round-guard',
    role: 'user',
    turn: 0,
    blocks: [{ type: 'tool_result', toolUseId: 'round-guard', content, meta: { ...meta } }],
  });
}

/** What the round guard needs besides the results. */
export interface RoundGuardOptions {
  /** Tokens the round's results may hold together ({@link roundBudgetTokens}). */
  readonly budgetTokens: number;
  /** Calibrated tokens of one result's content. */
  readonly tokensOf: (content: ToolResultContent) => number;
  /** Folder for spilled results (as for the per-result guard); empty: results are cut, not spilled. */
  readonly spillDirectory: string;
  /** The name of the tool a call id ran, for the notices. */
  readonly toolName: (toolUseId: string) => string;
  /**
   * The text a spilled result's file keeps when it is not the result's own: what the tool
   * returned before our tags in it were neutralised (toolRound.ts). Absent: the result's text.
   */
  readonly original?: (toolUseId: string) => string | undefined;
}

/** A guarded round: the results in their order (untouched ones are the same objects) and what was done. */
export interface GuardedRound {
  readonly results: readonly ToolResultInput[];
  /** Files the caller must write before the results are sent. */
  readonly spills: readonly Spill[];
  /** Results spilled to a file, and results cut to a share (a result may be both). */
  readonly spilled: number;
  readonly cut: number;
  /** Images left out (replaced by a note) when the text alone could not make the round fit. */
  readonly imagesLeftOut: number;
  /** The round's tokens before and after. */
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}

/**
 * Fits a tool round's results into `opts.budgetTokens` (see the module comment); the round as
 * it is when it fits. A result's text is spilled or cut only when it is all text: a string,
 * or parts that are all text (joined by line breaks, as one string after the change); when the
 * text alone cannot make the round fit, the largest images are left out with a note.
 */
export function guardRound(results: readonly ToolResultInput[], opts: RoundGuardOptions): GuardedRound {
  const tokens = results.map((r) => opts.tokensOf(r.content));
  const texts = results.map((r) => roundResultText(r.content));
  const tokensBefore = tokens.reduce((a, b) => a + b, 0);
  let total = tokensBefore;
  const out = [...results];
  const spills: Spill[] = [];
  let spilled = 0;
  let cut = 0;
  let imagesLeftOut = 0;
  if (total > opts.budgetTokens) {
    const why = `this round's ${results.length} tool results together (about ${formatCount(tokensBefore)} tokens) are more than the context window leaves for them (about ${formatCount(opts.budgetTokens)} tokens)`;
    const replace = (i: number, content: string): void => {
      out[i] = { ...(out[i] as ToolResultInput), content };
      texts[i] = content;
      const now = opts.tokensOf(content);
      total += now - (tokens[i] as number);
      tokens[i] = now;
    };
    // Without a spill folder nothing is spilled: the results go straight to their shares below.
    const largest =
      opts.spillDirectory.trim() === ''
        ? []
        : texts
            .flatMap((t, i) => (t !== undefined && t.length > SPILL_WORTH_CHARS ? [i] : []))
            .sort((a, b) => (tokens[b] as number) - (tokens[a] as number));
    for (const i of largest) {
      if (total <= opts.budgetTokens) break;
      const g = spillToolResult(
        texts[i] as string,
        spillOptions(out[i] as ToolResultInput, opts),
        why,
        GUARD_DEFAULTS.previewChars,
      );
      const original = opts.original?.((out[i] as ToolResultInput).toolUseId);
      if (g.spill) spills.push(original === undefined ? g.spill : { ...g.spill, content: original });
      spilled++;
      replace(i, g.content);
    }
    // Previews alone still too many: each text result is cut to an equal share of the room,
    // in characters at the round's own measured characters per token (tried anew, smaller, at
    // most 4 times, always from the previews, so notices never nest).
    const base = [...texts];
    const cutIds = new Set<number>();
    for (let attempt = 0, fraction = 0.9; attempt < 4 && total > opts.budgetTokens; attempt++, fraction *= 0.8) {
      const textual = base.flatMap((t, i) => (t !== undefined ? [i] : []));
      if (textual.length === 0) break;
      const textTokens = textual.reduce((n, i) => n + opts.tokensOf(base[i] as string), 0);
      const chars = textual.reduce((n, i) => n + (base[i] as string).length, 0);
      const room = opts.budgetTokens - (total - textual.reduce((n, i) => n + (tokens[i] as number), 0));
      const share = Math.max(
        MIN_SHARE_CHARS,
        Math.floor((Math.max(0, room) * (chars / Math.max(1, textTokens)) * fraction) / textual.length),
      );
      for (const i of textual) {
        const text = base[i] as string;
        if (text.length <= share) continue;
        const g = cutToolResult(text, opts.toolName((out[i] as ToolResultInput).toolUseId), share, why);
        cutIds.add(i);
        replace(i, g.content);
      }
    }
    cut = cutIds.size;
    ({ left: imagesLeftOut, total } = leaveOutImages(out, tokens, total, opts, why));
  }
  return { results: out, spills, spilled, cut, imagesLeftOut, tokensBefore, tokensAfter: total };
}

/**
 * Still over the budget after the text: images cannot be saved to a file the model could read
 * back, so the largest are left out, each replaced by a note naming its size and why (the
 * model can take it again on its own), until the round fits. Changes `out` and `tokens` in
 * place; returns how many images were left out and the round's tokens now.
 */
function leaveOutImages(
  out: ToolResultInput[],
  tokens: number[],
  total: number,
  opts: RoundGuardOptions,
  why: string,
): { left: number; total: number } {
  const images = out
    .flatMap((r, i) =>
      typeof r.content === 'string'
        ? []
        : r.content.flatMap((p, k) =>
            p.type === 'image' ? [{ i, k, data: p.data, tokens: imageTokens(p.data) }] : [],
          ),
    )
    .sort((a, b) => b.tokens - a.tokens);
  let left = 0;
  for (const im of images) {
    if (total <= opts.budgetTokens) break;
    const r = out[im.i] as ToolResultInput;
    const d = imageDimensions(im.data);
    const size = d ? `${d.width}×${d.height} px, ` : '';
    const parts = (r.content as Exclude<ToolResultContent, string>).map((p, k) =>
      k === im.k
        ? {
            type: 'text' as const,
            text: `[Image (${size}about ${formatCount(im.tokens)} tokens) left out: ${why}. Run the ${opts.toolName(r.toolUseId)} call again on its own if you need it.]`,
          }
        : p,
    );
    out[im.i] = { ...r, content: parts };
    const now = opts.tokensOf(parts);
    total += now - (tokens[im.i] as number);
    tokens[im.i] = now;
    left++;
  }
  return { left, total };
}

/** A result's text when it is all text (a string, or text parts joined by line breaks); undefined with images. */
export function roundResultText(content: ToolResultContent): string | undefined {
  if (typeof content === 'string') return content;
  const parts: string[] = [];
  for (const p of content) {
    if (p.type !== 'text') return undefined;
    parts.push(p.text);
  }
  return parts.join('\n');
}

/** Where one result of the round is spilled, and the tool named in its notice. */
function spillOptions(r: ToolResultInput, opts: RoundGuardOptions): SpillOptions {
  return {
    spillDirectory: opts.spillDirectory,
    fileName: `tool-${r.toolUseId}.txt`,
    toolName: opts.toolName(r.toolUseId),
  };
}

/** One sentence for the user about a guarded round; undefined when nothing was changed. */
export function roundGuardNotice(g: GuardedRound): string | undefined {
  if (g.spilled === 0 && g.cut === 0 && g.imagesLeftOut === 0) return undefined;
  const what = [
    g.spilled > 0 ? `${plural(g.spilled, 'result')} saved to files (a preview and the path stay)` : '',
    g.cut > 0 ? `${g.spilled > 0 ? formatCount(g.cut) : plural(g.cut, 'result')} cut to an equal share` : '',
    g.imagesLeftOut > 0 ? `${plural(g.imagesLeftOut, 'image')} left out (a note names each)` : '',
  ].filter((s) => s !== '');
  const listed = what.length <= 2 ? what.join(' and ') : `${what.slice(0, -1).join(', ')} and ${what.at(-1) as string}`;
  return `This tool round's ${plural(g.results.length, 'result')} came to about ${formatCount(g.tokensBefore)} tokens, more than the context window leaves for them: ${listed}, about ${formatCount(g.tokensAfter)} tokens now.`;
}
