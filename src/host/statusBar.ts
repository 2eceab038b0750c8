import * as vscode from 'vscode';

/** What the status bar shows. */
export interface ContextFigures {
  readonly promptTokens: number;
  /** `promptTokens` is an estimate (nothing reported yet in this session). */
  readonly estimated?: boolean;
  readonly window: number;
  readonly outputReserve: number;
  readonly softThreshold: number;
  readonly hardThreshold: number;
  /** Undefined when a request's price is unknown. */
  readonly costUsd: number | undefined;
  /** cache reads / prompt tokens of this session, 0..1, when known. */
  readonly cacheHitRate?: number;
  readonly compactions: number;
  /** The next request by category (calibrated tokens), largest first, when a session is open. */
  readonly breakdown?: ReadonlyArray<{ readonly label: string; readonly tokens: number }>;
}

/**
 * The context meter in the status bar: `$(pulse) 62% · 124k/200k`, warning colour past the
 * soft threshold, error colour past the hard one; a click opens the Context Budget panel.
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
    const effective = Math.max(1, f.window - f.outputReserve);
    const utilisation = f.promptTokens / effective;
    this.item.text = `$(pulse) ${f.estimated ? '≈' : ''}${Math.round((100 * f.promptTokens) / Math.max(1, f.window))}% · ${short(f.promptTokens)}/${short(f.window)}`;
    this.item.backgroundColor =
      utilisation >= f.hardThreshold
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : utilisation >= f.softThreshold
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**Context Pipeline**\n\n`);
    md.appendMarkdown(
      `${f.estimated ? 'Estimated prompt (nothing reported yet)' : 'Last prompt'}: ${f.promptTokens.toLocaleString('en-US')} tokens of a ${f.window.toLocaleString('en-US')}-token window (${f.outputReserve.toLocaleString('en-US')} reserved for the answer).\n\n`,
    );
    const parts = (f.breakdown ?? []).filter((b) => b.tokens > 0);
    if (parts.length > 0) {
      md.appendMarkdown(`| Next request | Tokens |\n|---|---:|\n`);
      for (const b of parts) md.appendMarkdown(`| ${b.label} | ${Math.round(b.tokens).toLocaleString('en-US')} |\n`);
      md.appendMarkdown('\n');
    }
    md.appendMarkdown(
      `Compaction: soft at ${Math.round(f.softThreshold * 100)}%, hard at ${Math.round(f.hardThreshold * 100)}% of ${effective.toLocaleString('en-US')} tokens · ${f.compactions} so far.\n\n`,
    );
    md.appendMarkdown(
      `Cost this session: ${f.costUsd === undefined ? "— (a model's price is unknown)" : `$${f.costUsd.toFixed(4)}`}${f.cacheHitRate !== undefined ? ` · cache hit rate ${Math.round(f.cacheHitRate * 100)}%` : ''}.`,
    );
    this.item.tooltip = md;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}

function short(n: number): string {
  return n >= 1000 ? `${Math.round(n / 1000)}k` : String(Math.round(n));
}
