import * as vscode from 'vscode';
import type { CompactionEntryState } from '../core/agent/agentSession';
import { summariesCost } from '../core/compaction/health';
import { formatUsd } from '../core/llm/cost';
import { describeReattached } from '../core/compaction/reattach';
import { describeIndexed } from '../core/compaction/fileIndex';
import { indexedFilesOf } from '../core/compaction/reattachRecord';
import { lostIdentifiers, significantLoss } from '../core/compaction/retention';
import type { CompactionRecord } from '../core/compaction/types';
import type { Message } from '../core/conversation/conversationModel';
import type { ToolLookup } from '../core/tools/callSummary';
import { plural } from '../core/text/counts';
import {
  compactionContextValue,
  compactionDescription,
  compactionLabel,
  compactionTurn,
  groupCompactions,
  ORPHANED_DESCRIPTION,
  recalledTooltip,
  REPLACEMENT_LABEL,
  replacementTitle,
  TRIGGER_LABEL,
  turnGroupDescription,
  turnGroupLabel,
  turnGroupSaved,
  turnRangeLabel,
} from './compactionRowText';
import {
  callNamer,
  callsIn,
  code,
  originalRow,
  originalTitles,
  originalTooltip,
  type CallLookup,
  type CallNamer,
} from './originalRowText';
import {
  messageDocument,
  parseRecordDocument,
  recordDocumentUri,
  summaryDocument,
  type RecordDocument,
} from './recordDocument';

export { ORPHANED_DESCRIPTION };

/**
 * Nodes of the Compactions tree: session → compactions (a turn's automatic ones grouped under
 * the turn) → summary / replaced regions → original messages.
 */
export type CompactionNode =
  | { readonly kind: 'session'; readonly id: string; readonly title: string }
  | { readonly kind: 'turn'; readonly turn: number; readonly entries: readonly CompactionEntryState[] }
  | { readonly kind: 'compaction'; readonly entry: CompactionEntryState }
  | { readonly kind: 'summary'; readonly record: CompactionRecord }
  | { readonly kind: 'reattached'; readonly record: CompactionRecord }
  | { readonly kind: 'carriedPlan'; readonly record: CompactionRecord }
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
 * The Compactions tree. Newest compaction first, the automatic ones of one turn grouped under
 * it (`Turn 3 · 4 automatic compactions`); each shows its trigger, time and tokens
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
  /** The titles of every record's originals (unique in the record), by record id; dropped with the lookup. */
  private readonly titles = new Map<string, Map<string, string>>();
  private readonly nameCall: CallNamer;
  readonly onDidChangeTreeData = this.changed.event;
  readonly onDidChange = this.docChanged.event;

  constructor(
    private readonly source: CompactionsSource,
    /** The host's tool definitions: calls are then named as the chat names them (`Read src/a.ts`). */
    toolDefinition?: ToolLookup,
  ) {
    this.nameCall = callNamer(toolDefinition);
    this.subscription = source.onDidChangeCompactions(() => {
      this.callLookup = undefined;
      this.titles.clear();
      this.changed.fire(undefined);
    });
  }

  private calls(): CallLookup {
    return (this.callLookup ??= callsIn(
      this.source.compactions.map((e) => e.record),
      this.source.messages,
    ));
  }

  private titleOf(record: CompactionRecord, m: Message): string {
    let titles = this.titles.get(record.id);
    if (!titles) this.titles.set(record.id, (titles = originalTitles(record.originals, this.calls(), this.nameCall)));
    return titles.get(m.id) ?? `Turn ${m.turn}`;
  }

  getTreeItem(node: CompactionNode): vscode.TreeItem {
    switch (node.kind) {
      case 'session': {
        const item = new vscode.TreeItem(node.title, vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = new vscode.ThemeIcon('comment-discussion');
        item.description = plural(this.source.compactions.length, 'compaction');
        return item;
      }
      case 'turn': {
        const item = new vscode.TreeItem(
          turnGroupLabel(node.turn, node.entries.length),
          vscode.TreeItemCollapsibleState.Collapsed,
        );
        const oldest = node.entries[node.entries.length - 1]?.record;
        item.id = `turn:${node.turn}:${oldest?.id ?? ''}`;
        item.contextValue = 'turnGroup';
        item.iconPath = new vscode.ThemeIcon('layers');
        item.description = turnGroupDescription(node.entries);
        item.tooltip = `The compactions that ran by themselves during turn ${node.turn}, newest first. Together they took ${fmt(turnGroupSaved(node.entries))} tokens out of the prompt.`;
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
            `Tokens ${fmt(r.tokensBefore)} → ${fmt(r.tokensAfter)}${r.model ? ` · ${r.model}` : ''} · ${formatUsd(summariesCost([r]))} · ${r.durationMs} ms`,
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
        const item = new vscode.TreeItem(REPLACEMENT_LABEL[node.record.layer], vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('note');
        item.tooltip = 'What stands in place of the originals now; click to open it, read-only.';
        item.command = { command: 'vscode.open', title: 'Open', arguments: [summaryUri(node.record)] };
        return item;
      }
      case 'carriedPlan': {
        const p = node.record.carriedPlan;
        const item = new vscode.TreeItem('Carried the plan', vscode.TreeItemCollapsibleState.None);
        item.description = p ? `${p.completed} of ${p.steps} done · ${fmt(p.tokens)} tokens` : '';
        item.iconPath = new vscode.ThemeIcon('checklist');
        item.tooltip =
          "Claude's plan (update_plan), carried to the next request after this compaction; Restore removes it with it.";
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
        item.command = { command: 'vscode.open', title: 'Open', arguments: [summaryUri(node.record)] };
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
        const calls = this.calls();
        const row = originalRow(m, calls, this.nameCall);
        const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
        item.description = row.description;
        item.tooltip = new vscode.MarkdownString(originalTooltip(m, calls, this.nameCall));
        item.iconPath = new vscode.ThemeIcon(m.role === 'user' ? 'account' : 'hubot');
        item.command = {
          command: 'vscode.open',
          title: 'Open',
          arguments: [
            recordUri({ recordId: node.record.id, what: 'message', messageId: m.id }, this.titleOf(node.record, m)),
          ],
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
      case 'session': {
        const turns = new Map<string, number>();
        const turnOf = (r: CompactionRecord): number => {
          const known = turns.get(r.id);
          if (known !== undefined) return known;
          const turn = compactionTurn(r, this.source.messages);
          turns.set(r.id, turn);
          return turn;
        };
        return groupCompactions(this.source.compactions, turnOf);
      }
      case 'turn':
        return node.entries.map((entry) => ({ kind: 'compaction', entry }));
      case 'compaction': {
        const r = node.entry.record;
        const regions: CompactionNode[] =
          r.regions.length > 0
            ? r.regions.map((_, index) => ({ kind: 'region', record: r, index }))
            : [{ kind: 'region', record: r, index: -1 }];
        const reattached: CompactionNode[] =
          (r.reattached?.length ?? 0) > 0 || indexedFilesOf(r).length > 0 ? [{ kind: 'reattached', record: r }] : [];
        const plan: CompactionNode[] = r.carriedPlan ? [{ kind: 'carriedPlan', record: r }] : [];
        return [{ kind: 'summary', record: r }, ...plan, ...reattached, ...regions];
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
    const doc = parseRecordDocument(uri.path, uri.query);
    const record = doc && this.source.compactions.find((c) => c.record.id === doc.recordId)?.record;
    if (!doc || !record) return 'This compaction is not part of the open session.';
    if (doc.what === 'summary') return summaryDocument(record);
    const m = record.originals.find((x) => x.id === doc.messageId);
    return m ? messageDocument(m) : 'This message is not part of the compaction.';
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
    this.docChanged.dispose();
  }
}

/** The virtual document URI of a record's summary or one of its original messages; `title` names its tab. */
export function recordUri(doc: RecordDocument, title: string): vscode.Uri {
  return vscode.Uri.from({ scheme: RECORD_SCHEME, ...recordDocumentUri(doc, title) });
}

function summaryUri(r: CompactionRecord): vscode.Uri {
  return recordUri({ recordId: r.id, what: 'summary' }, replacementTitle(r));
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
