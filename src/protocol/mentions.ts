/** The composer's `@` mentions: what the webview may ask for and what a mentioned path may be. */
import * as v from 'valibot';
import { MAX_LINK_HREF } from './validate';

/** The most characters of an `@` query the host takes (a longer one is no file name). */
export const MAX_MENTION_QUERY = 200;
/** The most files one `mentionResults` lists. */
export const MAX_MENTION_RESULTS = 50;

/** The id of one `mentionQuery`, echoed by its `mentionResults`. */
export const MentionRequestId = v.pipe(v.number(), v.integer(), v.minValue(0));
/** What follows an `@` in the composer. */
export const MentionQueryText = v.pipe(
  v.string(),
  v.maxLength(MAX_MENTION_QUERY, `A mention query is at most ${MAX_MENTION_QUERY} characters`),
);

/**
 * Whether `path` may name a workspace file in a mention: relative, `/`-separated, no `.` or
 * `..` or empty segment, no backslash, control character, `#` or `?`, not absolute, no scheme.
 */
export function isMentionPath(path: string): boolean {
  if (path.length === 0 || path.length > MAX_LINK_HREF) return false;
  if (/[\u0000-\u001f\u007f\\#?]/.test(path)) return false;
  if (path.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(path)) return false;
  return path.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

/** A workspace-relative path a mention may carry ({@link isMentionPath}). */
export const MentionPath = v.pipe(
  v.string(),
  v.check(isMentionPath, 'A mentioned file must be a workspace-relative path without `..`'),
);
