import * as vscode from 'vscode';
import { statusBarText, type ContextFigures } from './statusBarText';

export type { ContextFigures } from './statusBarText';

/**
 * The context meter in the status bar: `$(pulse) 62% · 124k/200k`, warning colour past the
 * soft threshold, error colour past the hard one (the level the figures carry, see
 * statusBarText.ts); a click opens the Context Budget panel.
 */
export class ContextStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(
    'contextPipeline.context',
    vscode.StatusBarAlignment.Right,
    100,
  );

  constructor() {
    this.item.name = 'Context Pipeline: context used';
    this.item.command = 'contextPipeline.showBudget';
  }

  /** Redraws the meter from the latest figures. */
  update(f: ContextFigures): void {
    const view = statusBarText(f);
    this.item.text = view.text;
    this.item.backgroundColor =
      view.tone === 'error'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : view.tone === 'warning'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(view.tooltip);
    this.item.tooltip = md;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
