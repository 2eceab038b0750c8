import * as vscode from 'vscode';

/** A node of the Compactions tree. Compactions arrive with the compaction engine. */
export type CompactionNode = { readonly kind: 'compaction'; readonly id: string; readonly label: string };

/**
 * The Compactions tree. Until a session has compactions it has no nodes, and VS Code shows
 * the view's welcome content (declared in package.json), which explains what will appear.
 */
export class CompactionsTreeProvider implements vscode.TreeDataProvider<CompactionNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<CompactionNode | undefined>();
  private nodes: readonly CompactionNode[] = [];

  /** Fires when the tree must be redrawn. */
  readonly onDidChangeTreeData = this.changed.event;

  /** Replaces the tree's nodes. */
  setNodes(nodes: readonly CompactionNode[]): void {
    this.nodes = nodes;
    this.changed.fire(undefined);
  }

  getTreeItem(node: CompactionNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = node.id;
    item.iconPath = new vscode.ThemeIcon('fold');
    return item;
  }

  getChildren(node?: CompactionNode): CompactionNode[] {
    return node ? [] : [...this.nodes];
  }

  dispose(): void {
    this.changed.dispose();
  }
}
