import * as vscode from 'vscode';
import type { ChatController } from './chat/chatController';
import { sessionPickItem, withChildrenUnderParents } from './sessions/sessionPick';
import type { SessionStore } from './sessions/sessionStore';
import { plural } from '../core/text/counts';
import { toast } from './toasts';

/**
 * "Context Pipeline: Sessions…": pick a session, then resume it, export it (Markdown or
 * JSONL) or delete it (after confirmation); a damaged one (warning icon, the reason) is
 * opened through the repairing loader or deleted (see sessionPick.ts). Failures are shown,
 * never swallowed.
 */
export async function showSessions(
  store: SessionStore,
  controller: ChatController | undefined,
  log: vscode.LogOutputChannel,
): Promise<void> {
  const list = await store.list();
  if (list.length === 0) {
    toast.info('Context Pipeline: no sessions yet.');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    withChildrenUnderParents(list).map((s) => sessionPickItem(s, (ms) => new Date(ms).toLocaleString())),
    { title: 'Context Pipeline sessions', placeHolder: 'Pick a session to resume, export or delete' },
  );
  if (!picked) return;
  const action = await vscode.window.showQuickPick(picked.actions, { title: picked.label });
  if (!action) return;
  const report = (r: { ok: true } | { ok: false; error: string }, done: string) => {
    if (r.ok) toast.info(done);
    else {
      log.error(r.error);
      toast.error(`Context Pipeline: ${r.error}`);
    }
  };
  switch (action) {
    case 'Resume':
    case 'Open and repair':
      await controller?.resume(picked.id);
      return;
    case 'Export as Markdown':
    case 'Export as JSONL': {
      const md = action === 'Export as Markdown';
      const dest = await vscode.window.showSaveDialog({
        filters: md ? { Markdown: ['md'] } : { 'JSON Lines': ['jsonl'] },
        defaultUri: vscode.Uri.file(`${picked.id}.${md ? 'md' : 'jsonl'}`),
      });
      if (!dest) return;
      report(
        md ? await store.exportMarkdown(picked.id, dest.fsPath) : await store.exportJsonl(picked.id, dest.fsPath),
        `Exported to ${dest.fsPath}.`,
      );
      return;
    }
    case 'Delete': {
      const sure = await vscode.window.showWarningMessage(
        `Delete the session "${picked.label.replace('$(warning) ', '')}"? Its file is removed; backups of repaired files are kept.`,
        { modal: true },
        'Delete',
      );
      if (sure !== 'Delete') return;
      const r = await store.delete(picked.id);
      report(
        r,
        r.ok && r.keptBackups.length
          ? `Session deleted; ${plural(r.keptBackups.length, 'backup file')} kept.`
          : 'Session deleted.',
      );
      return;
    }
  }
}
