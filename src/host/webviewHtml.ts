import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/** VS Code's icon font and its classes, beside the webview bundles. */
const CODICON_CSS = 'dist/webview/codicon.css';

/** A fresh nonce for one render of a webview: 128 random bits, base64. */
export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * The HTML shell of a webview with a strict Content-Security-Policy: nothing by default,
 * scripts only with this render's nonce, styles and fonts only from the extension, images
 * only from the extension and data: URIs (so model output can never load a remote image).
 * Every webview gets VS Code's icon font first (dist/webview/codicon.css, copied there by
 * esbuild.mjs), so `<span class="codicon codicon-NAME">` shows the workbench's icons.
 */
export function webviewHtml(opts: {
  webview: vscode.Webview;
  extensionUri: vscode.Uri;
  title: string;
  script: string;
  styles: readonly string[];
  body: string;
}): string {
  const { webview, extensionUri } = opts;
  const nonce = makeNonce();
  const src = (path: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...path.split('/'))).toString();
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
  ].join('; ');
  const styles = [CODICON_CSS, ...opts.styles].map((s) => `<link rel="stylesheet" href="${src(s)}">`).join('\n    ');
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta http-equiv="Content-Security-Policy" content="${csp}">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    ${styles}
    <title>${opts.title}</title>
  </head>
  <body>
    ${opts.body}
    <script nonce="${nonce}" src="${src(opts.script)}"></script>
  </body>
</html>`;
}

/** Only the built webview assets and the media folder may be loaded by a webview. */
export function webviewRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')];
}
