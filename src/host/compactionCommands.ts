import * as vscode from 'vscode';
import type { Outcome } from '../app/turnRunner';
import type { ChatController } from './chat/chatController';
import type { CompactionNode } from './compactionsTree';
import { previewSentence } from './compactionPreviewText';
import { toast } from './toasts';

/**
 * Compact Now (a preview of what would be compacted and the expected saving, optional
 * instructions, then the run with progress), Restore and Copy Summary on tree nodes.
 */
export function registerCompactionCommands(
  controller: ChatController,
  log: vscode.LogOutputChannel,
): vscode.Disposable[] {
  return [
    // From the palette: a preview and an input box for instructions. From `/compact …` in the chat: the instructions come with it.
    vscode.commands.registerCommand('contextPipeline.compactNow', (instructions?: unknown) =>
      compactNow(controller, log, typeof instructions === 'string' ? instructions : undefined),
    ),
    vscode.commands.registerCommand('contextPipeline.restoreCompaction', async (node?: CompactionNode) => {
      if (node?.kind !== 'compaction') return;
      const r = await controller.restore(node.entry.record.id);
      if (r.ok) toast.info('Context Pipeline: the original messages are back in the conversation.');
      else toast.warn(`Context Pipeline: could not restore — ${r.reason}`);
    }),
    vscode.commands.registerCommand('contextPipeline.showCompactions', () =>
      vscode.commands.executeCommand('contextPipeline.compactions.focus'),
    ),
    vscode.commands.registerCommand('contextPipeline.showInBudget', () =>
      vscode.commands.executeCommand('contextPipeline.showBudget'),
    ),
    vscode.commands.registerCommand('contextPipeline.copySummary', async (node?: CompactionNode) => {
      if (node?.kind !== 'compaction') return;
      const r = node.entry.record;
      const text =
        r.summary ??
        r.replacement
          .flatMap((m) => m.blocks.flatMap((b) => (b.type === 'text' || b.type === 'summary' ? [b.text] : [])))
          .join('\n\n');
      await vscode.env.clipboard.writeText(text);
      void vscode.window.setStatusBarMessage('Context Pipeline: summary copied', 3000);
    }),
  ];
}

async function compactNow(controller: ChatController, log: vscode.LogOutputChannel, given?: string): Promise<void> {
  const preview = await controller.compactionPreview();
  if (!preview) {
    toast.warn('Context Pipeline: no session is open.');
    return;
  }
  if (preview.regions.length === 0) {
    toast.info('Context Pipeline: nothing to compact — everything is recent, pinned or already a summary.');
    return;
  }
  const instructions =
    given ??
    (await vscode.window.showInputBox({
      title: 'Compact Now',
      prompt: `${previewSentence(preview)} Optional: tell the summariser what to focus on, then press Enter.`,
      placeHolder: 'e.g. focus on the auth bug and the files we changed',
      ignoreFocusOut: true,
    }));
  if (instructions === undefined) return;
  let cancelled = false;
  const result = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: 'Context Pipeline: compacting (waits for the running turn, if any)…',
      cancellable: true,
    },
    (_progress, token) => {
      // Cancelling drops a compaction still queued behind the running turn, or stops the one that runs.
      token.onCancellationRequested(() => {
        cancelled = true;
        controller.cancelCompaction();
      });
      // The session settles every compaction with a reason; a rejection still ends the progress and is shown.
      return controller.compactNow(instructions.trim() || undefined).catch((err: unknown): Outcome => ({
        ok: false,
        reason: `The compaction failed: ${err instanceof Error ? err.message : String(err)}`,
      }));
    },
  );
  if (result.ok)
    toast.info('Context Pipeline: compaction done. See it, its originals and Restore in the Compactions view.');
  else {
    log.warn(`Compact Now: ${result.reason}`);
    // Cancelled or stopped by the user: the chat says what happened; a warning would only repeat it.
    if (!cancelled && !result.byUser) toast.warn(`Context Pipeline: ${result.reason}`);
  }
}
