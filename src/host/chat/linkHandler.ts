import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import * as vscode from 'vscode';
import { isAllowedLinkHref, parseWorkspaceLink } from '../../protocol/chat';
import { toast } from '../toasts';

/** Whether `child` is `parent` or inside it (both absolute, already resolved). */
function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * The workspace file a relative link names: the first workspace folder holding it, with
 * symlinks resolved, refused when it lies outside every folder. Undefined when not found.
 */
export async function resolveWorkspaceLink(
  segments: readonly string[],
  roots: readonly string[],
): Promise<string | undefined> {
  for (const root of roots) {
    const candidate = resolve(root, ...segments);
    if (!isInside(resolve(root), candidate)) continue;
    let real: string;
    let realRoot: string;
    try {
      [real, realRoot] = await Promise.all([realpath(candidate), realpath(root)]);
    } catch {
      continue; // not in this folder
    }
    if (isInside(realRoot, real)) return real;
  }
  return undefined;
}

/**
 * Opens a link the chat webview asked for (already validated by the protocol, checked again
 * here): http(s) URLs in the external browser (VS Code asks about untrusted domains), and
 * workspace-relative paths as a text editor, optionally at `#L<line>`. Paths outside the
 * workspace are refused with a message.
 */
export async function openChatLink(href: string, log: vscode.LogOutputChannel): Promise<void> {
  if (!isAllowedLinkHref(href)) {
    log.warn(`Refused to open a link from the chat: ${JSON.stringify(href.slice(0, 200))}`);
    return;
  }
  if (/^https?:/i.test(href)) {
    await vscode.env.openExternal(vscode.Uri.parse(new URL(href).toString(), true));
    return;
  }
  const link = parseWorkspaceLink(href);
  const roots = (vscode.workspace.workspaceFolders ?? [])
    .filter((f) => f.uri.scheme === 'file')
    .map((f) => f.uri.fsPath);
  const file = link && (await resolveWorkspaceLink(link.segments, roots));
  if (!link || !file) {
    log.warn(`Refused to open ${JSON.stringify(href.slice(0, 200))}: not a file in the workspace`);
    toast.warn(`Context Pipeline: "${href.slice(0, 200)}" is not a file in the workspace.`);
    return;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const options: vscode.TextDocumentShowOptions = { preview: true };
  if (link.line !== undefined) {
    const line = Math.min(link.line, doc.lineCount) - 1;
    options.selection = new vscode.Range(line, 0, line, 0);
  }
  await vscode.window.showTextDocument(doc, options);
}

/** Puts text on the clipboard for the webview (whose own clipboard access may be denied). */
export async function copyToClipboard(text: string): Promise<void> {
  await vscode.env.clipboard.writeText(text);
}
