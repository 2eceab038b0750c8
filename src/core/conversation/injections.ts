import type { BlockSource, Injection, InjectionRef, ToolResultContent } from './conversationModel';
import { namesPattern, neutralizeTagPattern } from '../security/tagNeutralizer';

/**
 * Wraps pending injections in the XML tags Claude models know from Claude Code, so the
 * model can tell editor context and reminders from the user's own words.
 */

/** Tags the pipeline itself emits. Content may never open or close one of these. */
const PIPELINE_TAGS = ['system-reminder', 'ide_selection', 'ide_opened_file', 'attached_file'] as const;

const HOOK_TAG = /^[a-z][a-z0-9_-]{0,63}$/;

/** Whether a string is acceptable as a hook tag name. */
export function isValidHookTag(tag: string): boolean {
  return HOOK_TAG.test(tag) && !(PIPELINE_TAGS as readonly string[]).includes(tag);
}

/** The tag an injection is wrapped in. */
export function tagOf(injection: Injection): string {
  switch (injection.kind) {
    case 'ide_opened_file':
      return 'ide_opened_file';
    case 'ide_selection':
      return 'ide_selection';
    case 'attached_file':
      return 'attached_file';
    case 'system_reminder':
      return 'system-reminder';
    case 'hook':
      return injection.tag;
  }
}

/** The block source recorded for an injection. */
export function sourceOf(injection: Injection): BlockSource {
  switch (injection.kind) {
    case 'ide_opened_file':
      return 'ide_opened_file';
    case 'ide_selection':
      return 'ide_selection';
    case 'attached_file':
      return 'attached_file';
    case 'system_reminder':
      return 'reminder';
    case 'hook':
      return 'hook';
  }
}

/**
 * Neutralises every opening or closing tag of `tags` inside `content` by escaping its `<`
 * (or a lookalike of it) as `&lt;`, so content can never break out of (or fake) a wrapper.
 * Case-, whitespace-, invisible-character- and confusable-insensitive (`< / IDE_SELECTION >`,
 * `<\u200B/ide_selection>` and `＜/ide_selection＞` are caught too; see tagNeutralizer.ts).
 * Other text is untouched.
 */
export function neutralizeTags(content: string, tags: readonly string[]): string {
  return neutralizeTagPattern(content, namesPattern(tags));
}

/** Tags the project context (instruction files, workspace facts) wraps content in. */
export const PROJECT_CONTEXT_TAGS: readonly string[] = ['project_instructions', 'workspace_facts'];

/**
 * Tags of ours that only the pipeline writes into a request, never content it carries: a
 * tool result could otherwise fake project instructions in the same message as real nested
 * ones.
 */
export const UNTRUSTED_CONTENT_TAGS: readonly string[] = [
  ...PIPELINE_TAGS,
  'conversation_summary',
  ...PROJECT_CONTEXT_TAGS,
];

/**
 * Hook output tags (`user-prompt-submit-hook` and the like): a name ending in `-hook` or
 * `_hook` (at most 64 characters). Not any name containing "hook": `<useHook>` in code stays.
 */
const HOOK_LIKE = '[a-z0-9_-]{0,59}[-_]hook';

/**
 * Neutralises, in untrusted content (tool results, file text), every tag the pipeline itself
 * uses — {@link UNTRUSTED_CONTENT_TAGS} and hook-like tags — as {@link neutralizeTags} does.
 */
export function neutralizeUntrusted(content: string): string {
  return neutralizeTagPattern(content, `${namesPattern(UNTRUSTED_CONTENT_TAGS)}|${HOOK_LIKE}`);
}

/** A tool result with {@link neutralizeUntrusted} applied to its text (string or text parts); images as they are. */
export function neutralizeToolResult(content: ToolResultContent): ToolResultContent {
  if (typeof content === 'string') return neutralizeUntrusted(content);
  let changed = false;
  const parts = content.map((p) => {
    if (p.type !== 'text') return p;
    const text = neutralizeUntrusted(p.text);
    if (text === p.text) return p;
    changed = true;
    return { ...p, text };
  });
  return changed ? parts : content;
}

/** Renders one injection as its tagged text, with its content made safe. */
export function renderInjection(injection: Injection): string {
  return renderInjectionBlock(injection).text;
}

/**
 * Renders one injection (see {@link renderInjection}) together with the structured data its
 * block's meta carries (`BlockMeta.injection`): kind, tag, path, lines and where the content
 * begins in the text.
 */
export function renderInjectionBlock(injection: Injection): { readonly text: string; readonly ref: InjectionRef } {
  const tag = tagOf(injection);
  const guard = [...UNTRUSTED_CONTENT_TAGS, ...(injection.kind === 'hook' ? [injection.tag] : [])];
  const safe = (s: string) => neutralizeTags(s, guard);
  switch (injection.kind) {
    case 'ide_opened_file':
      return {
        text: `<${tag}>The user opened the file ${safe(injection.path)} in the IDE. This may or may not be related to the current task.</${tag}>`,
        ref: { kind: injection.kind, tag, path: injection.path },
      };
    case 'ide_selection': {
      const note = injection.truncatedChars
        ? `\n[Selection truncated: ${injection.truncatedChars.toLocaleString('en-US')} more characters not shown.]`
        : '';
      const head = `<${tag}>The user selected the lines ${injection.startLine} to ${injection.endLine} from ${safe(injection.path)}:\n`;
      return {
        text: `${head}${safe(injection.text)}${note}\n\nThis may or may not be related to the current task.</${tag}>`,
        ref: {
          kind: injection.kind,
          tag,
          path: injection.path,
          startLine: injection.startLine,
          endLine: injection.endLine,
          contentStart: head.length,
        },
      };
    }
    case 'attached_file': {
      const head = `<${tag}>The user attached the file ${safe(injection.path)}:\n`;
      const body = injection.text.length > 0 ? safe(injection.text) : '(the file is empty)';
      return {
        text: `${head}${body}\n</${tag}>`,
        ref: { kind: injection.kind, tag, path: injection.path, contentStart: head.length },
      };
    }
    case 'system_reminder':
    case 'hook': {
      const head = `<${tag}>\n`;
      const body = injection.kind === 'system_reminder' && injection.prebuilt ? injection.text : safe(injection.text);
      return {
        text: `${head}${body}\n</${tag}>`,
        ref: { kind: injection.kind, tag, contentStart: head.length },
      };
    }
  }
}

/** Validates an injection's own fields; returns a reason when it cannot be rendered. */
export function injectionProblem(injection: Injection): string | undefined {
  switch (injection.kind) {
    case 'ide_opened_file':
      return injection.path.trim() ? undefined : 'an opened-file injection has an empty path';
    case 'ide_selection':
      if (!injection.path.trim()) return 'a selection injection has an empty path';
      if (
        !Number.isInteger(injection.startLine) ||
        !Number.isInteger(injection.endLine) ||
        injection.startLine < 1 ||
        injection.endLine < injection.startLine
      ) {
        return `a selection injection has an invalid line range ${injection.startLine}–${injection.endLine}`;
      }
      return injection.text.length ? undefined : 'a selection injection has no text';
    case 'attached_file':
      return injection.path.trim() ? undefined : 'an attached-file injection has an empty path';
    case 'system_reminder':
      return injection.text.trim() ? undefined : 'a system reminder is empty';
    case 'hook':
      if (!isValidHookTag(injection.tag)) return `"${injection.tag}" is not a valid hook tag`;
      return injection.text.trim() ? undefined : `the ${injection.tag} hook output is empty`;
  }
}
