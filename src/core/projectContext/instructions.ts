/**
 * Project instructions: which instruction files a workspace folder may hold, and how their
 * (untrusted) text becomes system blocks — one `<project_instructions path="…">` block per
 * file, neutralised so a file can never open or close one of our tags, and capped in tokens
 * with a visible notice. Pure: the host reads the files, this decides and renders.
 */
import type { TextBlock } from '../conversation/conversationModel';
import { neutralizeUntrusted } from '../conversation/injections';
import type { Clock, IdSource, Tokenizer } from '../platform/platformPorts';
import { safeCutIndex, toWellFormed } from '../platform/text';

/** Which instruction sources are read, and the token cap (the `contextPipeline.instructions.*` settings). */
export interface InstructionSettings {
  /** AGENTS.md. */
  readonly agentsMd: boolean;
  /** CLAUDE.md and .claude/CLAUDE.md. */
  readonly claudeMd: boolean;
  /** CLAUDE.local.md. */
  readonly claudeLocalMd: boolean;
  /** AGENTS.md / CLAUDE.md of subfolders, injected when the agent reads or edits a file below them. */
  readonly nested: boolean;
  /** Most tokens all root instruction files together take (nested files: each). */
  readonly maxTokens: number;
}

/**
 * The most `contextPipeline.instructions.maxTokens` may be (its schema maximum in package.json,
 * which VS Code does not enforce on a settings file): more is taken as this.
 */
export const MAX_INSTRUCTION_TOKENS = 200_000;

/** The defaults of {@link InstructionSettings}. */
export const DEFAULT_INSTRUCTION_SETTINGS: InstructionSettings = {
  agentsMd: true,
  claudeMd: true,
  claudeLocalMd: true,
  nested: true,
  maxTokens: 8000,
};

/** The instruction files of a workspace folder's root, in the order they are placed, with the setting that enables each. */
export const ROOT_INSTRUCTION_FILES: ReadonlyArray<{
  readonly path: string;
  readonly setting: 'agentsMd' | 'claudeMd' | 'claudeLocalMd';
}> = [
  { path: 'AGENTS.md', setting: 'agentsMd' },
  { path: 'CLAUDE.md', setting: 'claudeMd' },
  { path: '.claude/CLAUDE.md', setting: 'claudeMd' },
  { path: 'CLAUDE.local.md', setting: 'claudeLocalMd' },
];

/** The root-relative instruction paths the settings enable, in order. */
export function rootInstructionPaths(settings: InstructionSettings): string[] {
  return ROOT_INSTRUCTION_FILES.filter((f) => settings[f.setting]).map((f) => f.path);
}

/** The instruction file names looked for in a subfolder (nested instructions), as the settings enable them. */
export function nestedInstructionNames(settings: InstructionSettings): string[] {
  if (!settings.nested) return [];
  return [...(settings.agentsMd ? ['AGENTS.md'] : []), ...(settings.claudeMd ? ['CLAUDE.md'] : [])];
}

/**
 * Untrusted workspace text made safe for the project context: well-formed Unicode, and every
 * tag of ours (project context, pipeline, summary and hook-like tags) neutralised.
 */
export function neutralizeProjectText(text: string): string {
  return neutralizeUntrusted(toWellFormed(text));
}

/** A value for a double-quoted attribute: quotes, brackets and ampersands escaped, one line. */
export function attributeValue(text: string): string {
  return toWellFormed(text)
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** The text of one instruction file, read by the host. */
export interface InstructionFile {
  /** Workspace-relative path (folder-name prefixed in a multi-root workspace). */
  readonly origin: string;
  readonly text: string;
}

/** Text cut to a token budget. */
export interface CappedText {
  readonly text: string;
  /** Tokens of the whole text and of what was kept. */
  readonly totalTokens: number;
  readonly keptTokens: number;
  readonly truncated: boolean;
  /**
   * `totalTokens` was extrapolated from what was counted (the text is far over the cap: the
   * rest is priced at the counted part's tokens per character, not counted).
   */
  readonly totalEstimated?: boolean;
}

/** Longest piece of one line counted at a time (a minified file is one long line). */
const SEGMENT_CHARS = 2_000;

/** Characters counted past the cut to report the total; beyond, the total is extrapolated. */
const TOTAL_COUNT_CHARS = 256 * 1024;

/** The text's lines (each with its line end), long lines in SEGMENT_CHARS pieces never splitting a surrogate pair. */
function* segments(text: string): Generator<string> {
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    const lineEnd = nl < 0 ? text.length : nl + 1;
    const end =
      lineEnd - start > SEGMENT_CHARS ? Math.max(start + 1, safeCutIndex(text, start + SEGMENT_CHARS)) : lineEnd;
    yield text.slice(start, end);
    start = end;
  }
}

/**
 * The longest start of `text` whose count is at most `maxTokens`, cut back to a line end when
 * one is near, never splitting a surrogate pair. Linear: the text is counted once, line by line
 * (long lines in pieces), and only the piece where the budget runs out is searched; past the
 * cut, counting stops after TOTAL_COUNT_CHARS and the rest of the total is extrapolated
 * (`totalEstimated`), so a 1 MB file costs what its first few hundred KB do.
 */
export function capTokens(text: string, maxTokens: number, tokenizer: Tokenizer): CappedText {
  const budget = Math.max(0, maxTokens);
  let used = 0;
  let at = 0;
  let cut: { index: number; kept: number } | undefined;
  for (const seg of segments(text)) {
    const n = tokenizer.count(seg);
    if (!cut && used + n > budget) cut = cutInside(text, at, seg, budget - used, used, tokenizer);
    used += n;
    at += seg.length;
    if (cut && at - cut.index > TOTAL_COUNT_CHARS && at < text.length) {
      const total = Math.round(used + ((text.length - at) * used) / Math.max(1, at));
      return {
        text: text.slice(0, cut.index),
        totalTokens: total,
        keptTokens: cut.kept,
        truncated: true,
        totalEstimated: true,
      };
    }
  }
  if (!cut) return { text, totalTokens: used, keptTokens: used, truncated: false };
  return { text: text.slice(0, cut.index), totalTokens: used, keptTokens: cut.kept, truncated: true };
}

/**
 * Where to cut inside `seg` (which starts at `at` in `text`, after `before` tokens): the most
 * of it within `left` tokens (binary search over at most SEGMENT_CHARS characters), or the
 * start of its line when that is near; the tokens kept.
 */
function cutInside(
  text: string,
  at: number,
  seg: string,
  left: number,
  before: number,
  tokenizer: Tokenizer,
): { index: number; kept: number } {
  let lo = 0;
  let hi = seg.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (tokenizer.count(seg.slice(0, safeCutIndex(seg, mid))) <= left) lo = mid;
    else hi = mid - 1;
  }
  const inside = safeCutIndex(seg, lo);
  const end = at + inside;
  // Back to the start of the line when the cut is near it (seg is a whole line, or its first piece).
  if ((at === 0 || text[at - 1] === '\n') && at > end * 0.8) return { index: at, kept: before };
  return { index: end, kept: before + tokenizer.count(seg.slice(0, inside)) };
}

/** A file cut or left out by the cap. */
export interface TruncatedInstruction {
  readonly origin: string;
  readonly totalTokens: number;
  readonly keptTokens: number;
  /** `totalTokens` is extrapolated (see CappedText). */
  readonly totalEstimated?: boolean;
}

/** A file's total for a person: `12,345`, or `about 250,000` when it was extrapolated. */
function totalPhrase(t: { readonly totalTokens: number; readonly totalEstimated?: boolean }): string {
  return `${t.totalEstimated ? 'about ' : ''}${t.totalTokens.toLocaleString('en-US')}`;
}

/** Instruction blocks and what the cap cut. */
export interface RenderedInstructions {
  readonly blocks: readonly TextBlock[];
  readonly truncated: readonly TruncatedInstruction[];
}

/** The tagged text of one instruction file (`body` already capped), with the truncation notice inside the tag. */
export function instructionText(
  origin: string,
  body: string,
  cut?: {
    readonly keptTokens: number;
    readonly totalTokens: number;
    readonly totalEstimated?: boolean;
    readonly maxTokens: number;
  },
): string {
  const safe = neutralizeProjectText(body).replace(/\s+$/, '');
  const notice = cut
    ? `${safe === '' ? '' : '\n\n'}[Truncated by Context Pipeline: ${cut.keptTokens.toLocaleString('en-US')} of ${totalPhrase(cut)} tokens shown (contextPipeline.instructions.maxTokens is ${cut.maxTokens.toLocaleString('en-US')}). Read ${origin} for the rest when you need it.]`
    : '';
  return `<project_instructions path="${attributeValue(origin)}">\n${safe}${notice}\n</project_instructions>`;
}

/**
 * One system block per instruction file, in the given order, source `instructions` and the
 * file's path as origin. The files share `maxTokens`: a file that does not fit in what the
 * ones before it left is cut (or, with nothing left, stands as its notice alone), and listed
 * in `truncated`.
 */
export function renderInstructionBlocks(
  files: readonly InstructionFile[],
  opts: { readonly maxTokens: number; readonly tokenizer: Tokenizer },
  deps: { readonly clock: Clock; readonly ids: IdSource },
): RenderedInstructions {
  const blocks: TextBlock[] = [];
  const truncated: TruncatedInstruction[] = [];
  let left = Math.max(0, opts.maxTokens);
  for (const f of files) {
    const capped = capTokens(f.text, left, opts.tokenizer);
    left -= capped.keptTokens;
    if (capped.truncated)
      truncated.push({
        origin: f.origin,
        totalTokens: capped.totalTokens,
        keptTokens: capped.keptTokens,
        ...(capped.totalEstimated ? { totalEstimated: true } : {}),
      });
    const text = instructionText(
      f.origin,
      capped.text,
      capped.truncated ? { ...capped, maxTokens: opts.maxTokens } : undefined,
    );
    blocks.push({
      type: 'text',
      text,
      meta: {
        id: deps.ids.next('ins'),
        tier: 3,
        source: 'instructions',
        origin: f.origin,
        createdAt: deps.clock.now(),
        pinned: true,
        compactable: false,
      },
    });
  }
  return { blocks, truncated };
}

/** The one-line chat warning for what the cap cut (undefined when nothing). */
export function truncationNotice(truncated: readonly TruncatedInstruction[], maxTokens: number): string | undefined {
  if (truncated.length === 0) return undefined;
  const parts = truncated.map((t) =>
    t.keptTokens === 0
      ? `${t.origin} left out (${totalPhrase(t)} tokens)`
      : `${t.origin} cut to ${t.keptTokens.toLocaleString('en-US')} of ${totalPhrase(t)} tokens`,
  );
  return `Project instructions exceed contextPipeline.instructions.maxTokens (${maxTokens.toLocaleString('en-US')}): ${parts.join('; ')}. The model is told where the text was cut.`;
}
