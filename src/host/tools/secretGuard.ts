/**
 * The tools never hand the model a file that looks like it holds secrets (`.env*`,
 * `.git/config`, keys, registry tokens …): the rule editor context already follows
 * (core/secretFiles.ts), checked on the path as asked and on the real file it leads to.
 */
import { secretFileReason } from '../../core/security/secretFiles';
import { toolError, type ToolResult } from '../../core/tools/result';
import { resolveToolPath, type PathSpace } from './paths';

/**
 * The error result that refuses to read `requested` when it (or, through a symbolic link,
 * the real file) looks like a secrets file; undefined when it may be read. Says why and what
 * to do instead; never contains the file's content.
 */
export async function secretReadRefusal(
  tool: string,
  requested: string,
  space: PathSpace | readonly string[],
): Promise<ToolResult | undefined> {
  let shown = requested;
  let reason = secretFileReason(requested);
  if (reason === undefined) {
    const resolved = await resolveToolPath(
      Array.isArray(space) ? { roots: space } : (space as PathSpace),
      requested,
      'read',
    );
    if (resolved.ok) {
      reason = secretFileReason(resolved.display) ?? secretFileReason(resolved.path);
      if (resolved.display !== requested) shown = `${requested} (which leads to ${resolved.display})`;
    }
  }
  if (reason === undefined) return undefined;
  return toolError(
    `${tool}: ${shown} was not read because it looks like a secrets file (${reason}). Its content is never sent to the model, whatever the settings say. If you need something from it, ask the user to share only what is safe.`,
  );
}

/**
 * Whether an edit_file result about this file must not quote the file: a secrets file may be
 * edited (with the user's approval) but its existing lines never go back to the model — no
 * snippet after the edit, no near-miss line when old_string is not found.
 */
export function quotesForbidden(display: string, realPath: string): boolean {
  return secretFileReason(display) !== undefined || secretFileReason(realPath) !== undefined;
}
