import * as vscode from 'vscode';
import type { CompactionEntryState } from '../core/agent/agentSession';
import { describeServerBlock } from '../core/conversation/serverTools';
import { describeReattached } from '../core/compaction/reattach';
import { describeIndexed } from '../core/compaction/fileIndex';
import { indexedFilesOf } from '../core/compaction/reattachRecord';
import { lostIdentifiers, significantLoss } from '../core/compaction/retention';
import type { CompactionRecord } from '../core/compaction/types';
import type { Message } from '../core/conversation/conversationModel';
import { plural } from '../core/tools/result';
import {
  compactionContextValue,
  compactionDescription,
  compactionLabel,
  ORPHANED_DESCRIPTION,
  recalledTooltip,
  TRIGGER_LABEL,
  turnRangeLabel,
} from './compactionRowText';
import { callsIn, code, originalDescription, originalTooltip, type CallLookup } from './originalRowText';

export { ORPHANED_DESCRIPTION };

/** Nodes of the Compactions tree: session → compactions → summary / replaced regions → original messages. */
export type CompactionNode =
  | { readonly kind: 'session'; readonly id: string; readonly title: string }
  | { readonly kind: 'compaction'; readonly entry: CompactionEntryState }
  | { readonly kind: 'summary'; readonly record: CompactionRecord }
  | { readonly kind: 'reattached'; readonly record: CompactionRecord }
  | { readonly kind: 'region'; readonly record: CompactionRecord; readonly index: number }
  | { readonly kind: 'original'; readonly record: CompactionRecord; readonly message: Message };

/** Where the tree reads the open session's compactions. */
export interface CompactionsSource {
  readonly compactions: readonly CompactionEntryState[];
  /** The conversation as it stands: the calls whose results a record holds are often still there. */
  readonly messages: readonly Message[];
  readonly sessionLabel: { id: string; title: string } | undefined;
  readonly onDidChangeCompactions: vscode.Event<void>;
}

/** URI scheme of the read-only documents showing summaries and original messages. */
export const RECORD_SCHEME = 'context-pipeline-record';

/**
 * The Compactions tree. Newest compaction first; each shows its trigger, time and tokens
 * before → after, a warning when the retention check found a significant loss (significantLoss), and opens its
 * summary and original messages as read-only documents. Restored ones stay listed, marked
 * "· restored" and without the Restore action; orphaned ones (their messages were lost from
 * the file) are marked "· orphaned — originals only", also without Restore.
 */
export class CompactionsTreeProvider
  implements vscode.TreeDataProvider<CompactionNode>, vscode.TextDocumentContentProvider, vscode.Disposable
{
  private readonly changed = new vscode.EventEmitter<CompactionNode | undefined>();
  private readonly docChanged = new vscode.EventEmitter<vscode.Uri>();
  private readonly subscription: vscode.Disposable;
  /** The calls of every record, by id, for the rows of tool results; dropped when the compactions change. */
  private callLookup: CallLookup | undefined;
  readonly onDidChangeTreeData = this.changed.event;
  readonly onDidChange = this.docChanged.event;

  constructor(private readonly source: CompactionsSource) {
    this.subscription = source.onDidChangeCompactions(() => {
      this.callLookup = undefined;
      this.changed.fire(undefined);
    });
  }

  private calls(): CallLookup {
    return (this.callLookup ??= callsIn(
      this.source.compactions.map((e) => e.record),
      this.source.messages,
    ));
  }

  getTreeItem(node: CompactionNode): vscode.TreeItem {
    switch (node.kind) {
      case 'session': {
        const item = new vscode.TreeItem(node.title, vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = new vscode.ThemeIcon('comment-discussion');
        item.description = plural(this.source.compactions.length, 'compaction');
        return item;
      }
      case 'compaction': {
        const r = node.entry.record;
        const lost = r.retention ? lostIdentifiers(r.retention) : [];
        const item = new vscode.TreeItem(
          compactionLabel(node.entry, new Date(r.at).toLocaleTimeString()),
          vscode.TreeItemCollapsibleState.Collapsed,
        );
        item.id = r.id;
        item.description = compactionDescription(node.entry);
        const recalled = recalledTooltip(node.entry);
        item.contextValue = compactionContextValue(node.entry);
        item.iconPath =
          r.retention && significantLoss(r.retention)
            ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
            : new vscode.ThemeIcon(node.entry.active ? 'fold' : 'unfold');
        item.tooltip = new vscode.MarkdownString(
          [
            `**${r.layer}** (${r.strategy}) · ${TRIGGER_LABEL[r.trigger]}`,
            ...(r.layer === 'server-compact'
              ? [
                  'Compacted by the API (`compact_20260112`): it cannot be restored — the API ignores what stands before its summary.',
                ]
              : []),
            ...(node.entry.orphaned
              ? [
                  'Orphaned: the messages it replaced were lost from the session file. Its originals are kept here (their only copy); it cannot be restored.',
                ]
              : []),
            `Tokens ${fmt(r.tokensBefore)} → ${fmt(r.tokensAfter)}${r.model ? ` · ${r.model}` : ''} · $${r.costUsd.toFixed(4)} · ${r.durationMs} ms`,
            ...(r.fallbacks.length ? [`Fallbacks: ${r.fallbacks.join('; ')}`] : []),
            ...(lost.length
              ? [
                  `Retention check: the replacement lost ${plural(lost.length, 'identifier')}: ${lost
                    .slice(0, 8)
                    .map((x) => `\`${x}\``)
                    .join(', ')}`,
                ]
              : r.retention
                ? ['Retention check: nothing lost.']
                : []),
            ...(recalled ? [recalled] : []),
          ].join('\n\n'),
        );
        return item;
      }
      case 'summary': {
        const item = new vscode.TreeItem(
          node.record.summary ? 'Summary' : 'Replacement',
          vscode.TreeItemCollapsibleState.None,
        );
        item.iconPath = new vscode.ThemeIcon('note');
        item.description = node.record.layer;
        item.command = { command: 'vscode.open', title: 'Open', arguments: [recordUri(node.record.id, 'summary')] };
        return item;
      }
      case 'reattached': {
        const files = node.record.reattached ?? [];
        const named = indexedFilesOf(node.record);
        const label = [
          ...(files.length > 0 ? [`Re-attached ${plural(files.length, 'file')}`] : []),
          ...(named.length > 0 ? [`named ${plural(named.length, 'other file')}`] : []),
        ].join(', ');
        const item = new vscode.TreeItem(
          label.charAt(0).toUpperCase() + label.slice(1),
          vscode.TreeItemCollapsibleState.None,
        );
        item.description = files.length > 0 ? describeReattached(files) : describeIndexed(named);
        item.iconPath = new vscode.ThemeIcon('file-symlink-file');
        item.tooltip = new vscode.MarkdownString(
          [
            'Files re-attached to the next request after this compaction (read fresh from disk); Restore removes them with it.',
            ...files.map(
              (f) =>
                `- ${code(f.path)} — ${f.attached === 'content' ? `content, ${fmt(f.tokens)} tokens` : `path only: ${f.reason ?? ''}`}`,
            ),
            ...(named.length > 0
              ? [
                  'Other files read or edited earlier, named by path so the agent knows it worked on them:',
                  ...named.map((f) => `- ${code(f.path)}${f.edited ? ' (edited)' : ''}`),
                ]
              : []),
          ].join('\n\n'),
        );
        item.command = { command: 'vscode.open', title: 'Open', arguments: [recordUri(node.record.id, 'summary')] };
        return item;
      }
      case 'region': {
        const reg = node.record.regions[node.index];
        const item = new vscode.TreeItem(
          reg ? turnRangeLabel(reg.firstTurn, reg.lastTurn) : 'Replaced messages',
          vscode.TreeItemCollapsibleState.Collapsed,
        );
        item.iconPath = new vscode.ThemeIcon('history');
        item.description = reg
          ? `${plural(reg.messageIds.length, 'message')} · ${fmt(reg.tokens)} tokens`
          : plural(node.record.originals.length, 'message');
        return item;
      }
      case 'original': {
        const m = node.message;
        const item = new vscode.TreeItem(`${m.role} · turn ${m.turn}`, vscode.TreeItemCollapsibleState.None);
        const calls = this.calls();
        item.description = originalDescription(m, calls);
        item.tooltip = new vscode.MarkdownString(originalTooltip(m, calls));
        item.iconPath = new vscode.ThemeIcon(m.role === 'user' ? 'account' : 'hubot');
        item.command = {
          command: 'vscode.open',
          title: 'Open',
          arguments: [recordUri(node.record.id, `message/${m.id}`)],
        };
        return item;
      }
    }
  }

  getChildren(node?: CompactionNode): CompactionNode[] {
    if (!node) {
      const label = this.source.sessionLabel;
      return label && this.source.compactions.length > 0 ? [{ kind: 'session', ...label }] : [];
    }
    switch (node.kind) {
      case 'session':
        return [...this.source.compactions].reverse().map((entry) => ({ kind: 'compaction', entry }));
      case 'compaction': {
        const r = node.entry.record;
        const regions: CompactionNode[] =
          r.regions.length > 0
            ? r.regions.map((_, index) => ({ kind: 'region', record: r, index }))
            : [{ kind: 'region', record: r, index: -1 }];
        const reattached: CompactionNode[] =
          (r.reattached?.length ?? 0) > 0 || indexedFilesOf(r).length > 0 ? [{ kind: 'reattached', record: r }] : [];
        return [{ kind: 'summary', record: r }, ...reattached, ...regions];
      }
      case 'region': {
        const reg = node.record.regions[node.index];
        const ids = reg ? new Set(reg.messageIds) : undefined;
        return node.record.originals
          .filter((m) => !ids || ids.has(m.id))
          .map((message) => ({ kind: 'original', record: node.record, message }));
      }
      default:
        return [];
    }
  }

  /** Read-only text of a summary or an original message (virtual documents). */
  provideTextDocumentContent(uri: vscode.Uri): string {
    const [recordId, what, messageId] = uri.path.replace(/^\//, '').replace(/\.md$/, '').split('/');
    const record = this.source.compactions.find((c) => c.record.id === recordId)?.record;
    if (!record) return 'This compaction is not part of the open session.';
    if (what === 'summary') return summaryDocument(record);
    const m = record.originals.find((x) => x.id === messageId);
    return m ? messageDocument(m) : 'This message is not part of the compaction.';
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
    this.docChanged.dispose();
  }
}

/** The virtual document URI of a record's summary or one of its original messages. */
export function recordUri(recordId: string, what: string): vscode.Uri {
  return vscode.Uri.from({ scheme: RECORD_SCHEME, path: `/${recordId}/${what}.md` });
}

function summaryDocument(r: CompactionRecord): string {
  const lines = [
    `# Compaction ${r.id}`,
    '',
    `- Trigger: ${r.trigger} · layer: ${r.layer} · strategy: ${r.strategy}`,
    `- Tokens: ${fmt(r.tokensBefore)} → ${fmt(r.tokensAfter)}`,
    `- When: ${new Date(r.at).toISOString()}`,
  ];
  if (r.model) lines.push(`- Summariser: ${r.model} · $${r.costUsd.toFixed(4)} · ${r.durationMs} ms`);
  if (r.instructions) lines.push(`- Instructions: ${r.instructions}`);
  if (r.fallbacks.length) lines.push(`- Fallbacks: ${r.fallbacks.join('; ')}`);
  if (r.reattached?.length) lines.push(`- Re-attached: ${describeReattached(r.reattached)}`);
  const named = indexedFilesOf(r);
  if (named.length) lines.push(`- Also named (path only): ${describeIndexed(named)}`);
  if (r.retention)
    lines.push(
      `- Retention check: ${Math.round(r.retention.retained * 100)}% of identifiers kept${r.retention.lost.length ? `; lost: ${r.retention.lost.join(', ')}` : ''}`,
    );
  lines.push('', '## What stands in place of the originals', '');
  for (const m of r.replacement) lines.push(messageDocument(m), '');
  return lines.join('\n');
}

function messageDocument(m: Message): string {
  const out = [`### ${m.role} · turn ${m.turn} · ${m.id}`, ''];
  for (const b of m.blocks) {
    switch (b.type) {
      case 'text':
      case 'summary':
        out.push(b.text, '');
        break;
      case 'thinking':
        out.push('_(thinking)_', b.thinking, '');
        break;
      case 'tool_use':
        out.push(`**Tool call** \`${b.name}\` (${b.id})`, '```json', JSON.stringify(b.input, null, 2), '```', '');
        break;
      case 'tool_result':
        out.push(
          `**Tool result** for ${b.toolUseId}${b.isError ? ' (error)' : ''}`,
          '```',
          typeof b.content === 'string'
            ? b.content
            : b.content.map((p) => (p.type === 'text' ? p.text : `[image ${p.mediaType}]`)).join('\n'),
          '```',
          '',
        );
        break;
      case 'image':
        out.push(`[image ${b.mediaType}]`, '');
        break;
      case 'server_tool':
        out.push(`**Server tool** ${describeServerBlock(b)}`, '');
        break;
    }
  }
  return out.join('\n');
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
