/**
 * Rewind to here, as the user sees it: on one of their messages, a quick pick asks what goes
 * back — the conversation and the files Claude changed, the conversation only, or the files
 * only — each with what it would do (how many messages leave, which files go back, which were
 * changed by hand since, which cannot). When files changed by hand since would be overwritten,
 * a modal lists them and asks (Show Diffs opens each beside what it would become, then asks
 * again): overwrite them, skip them, or cancel. Then the session does it (SessionCommands
 * `rewindTo`: the files first, then the record, then the conversation), the message's words go
 * back to the composer, and the rewind is a record in the Compactions view: its Restore brings
 * the conversation and the files forward again, asking about files changed since by the same
 * rule (`undo`).
 */
import * as vscode from 'vscode';
import {
  describeFilesPlan,
  UNSAVED_NOTE,
  withUnsavedConflicts,
  type FilesPlan,
  type FilesPlanResult,
} from '../../core/rewind/filesRewind';
import type { FileRef } from '../../core/rewind/fileState';
import type { SendResult } from '../../core/agent/sessionCore';
import type { UserCommands } from '../../core/agent/sessionCommands';
import type { Message } from '../../core/conversation/conversationModel';
import type { FileRewinder } from './fileRewinder';
import { startsTurn } from '../../core/compaction/regions';
import { toast } from '../toasts';

/** The scheme of the read-only documents the conflict diffs show (what a file would become). */
export const REWIND_SCHEME = 'context-pipeline-rewind';

/** What the flow needs of the open session. */
export interface RewindSession {
  readonly messages: readonly Message[];
  readonly busy: boolean;
  readonly commands: Pick<UserCommands, 'rewindTo' | 'summarizeAround'>;
  /** The session's file rewinder; undefined when its checkpoints could not be opened. */
  readonly rewinder: FileRewinder | undefined;
}

/** The three choices of the quick pick. */
type Choice = 'both' | 'conversation' | 'files' | 'summarizeFrom' | 'summarizeUpTo';

/** Rewind to here and its undo (see the module comment). */
export class RewindFlow implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly documents = new Map<string, string>();
  private readonly registration: vscode.Disposable;

  constructor(
    private readonly session: () => RewindSession | undefined,
    /** Puts words back into the chat's composer. */
    private readonly toComposer: (text: string) => void,
    private readonly show: (ref: FileRef) => string,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(REWIND_SCHEME, this);
  }

  /** The content of a conflict diff's "after the rewind" side. */
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.documents.get(uri.toString()) ?? '';
  }

  /** Rewind to here on message `messageId`. */
  async rewindTo(messageId: string): Promise<void> {
    const s = this.session();
    if (!s) return;
    if (s.busy) {
      toast.warn('A turn is still running: stop it or wait for it to finish, then rewind.');
      return;
    }
    const at = s.messages.findIndex((m) => m.id === messageId);
    const turns = at < 0 ? 0 : s.messages.slice(at).filter(startsTurn).length;
    const files = this.markUnsaved(s.rewinder ? await s.rewinder.plan(messageId) : undefined);
    const filesText = !files
      ? 'File checkpoints are not available in this session.'
      : files.ok
        ? describeFilesPlan(files.plan, this.show)
        : files.reason;
    const canFiles = files?.ok === true && (files.plan.steps.length > 0 || files.plan.cannot.length > 0);
    const fileCount = files?.ok ? files.plan.steps.length : 0;
    const leaves = `${turns === 1 ? 'this turn leaves' : `these ${turns} turns leave`} the conversation`;
    const filesShort = `${fileCount} file${fileCount === 1 ? '' : 's'} go${fileCount === 1 ? 'es' : ''} back`;
    const convText = `Restorable from the Compactions view; your words go back to the message box.`;
    type Item = vscode.QuickPickItem & { choice: Choice };
    const items: Item[] = [
      ...(canFiles
        ? [
            {
              choice: 'both' as const,
              label: '$(discard) Conversation and files',
              description: `${leaves} · ${filesShort}`,
              detail: filesText,
            },
          ]
        : []),
      {
        choice: 'conversation',
        label: '$(comment-discussion) Conversation only',
        description: `${leaves} · files stay`,
        detail: convText,
      },
      ...(canFiles
        ? [
            {
              choice: 'files' as const,
              label: '$(files) Files only',
              description: `${filesShort} · the conversation stays`,
              detail: filesText,
            },
          ]
        : []),
      { choice: 'summarizeFrom', label: 'Summarize', kind: vscode.QuickPickItemKind.Separator },
      {
        choice: 'summarizeFrom',
        label: '$(fold-down) Summarize from here',
        description: 'this message and what follows, up to the newest turns',
        detail: 'Through the compaction plan (the newest tokens stay verbatim); restorable from the Compactions view.',
      },
      {
        choice: 'summarizeUpTo',
        label: '$(fold-up) Summarize up to here',
        description: 'everything before this message',
        detail: 'Through the compaction plan; this message and what follows stay as they are; restorable.',
      },
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title: 'Rewind or summarize from this message',
      placeHolder: canFiles ? 'What goes back to when you sent this message?' : `What goes back? ${filesText}`,
      matchOnDetail: true,
    });
    if (!picked) return;
    if (picked.choice === 'summarizeFrom' || picked.choice === 'summarizeUpTo') {
      const done = await s.commands.summarizeAround(messageId, picked.choice === 'summarizeFrom' ? 'from' : 'upTo');
      if (!done.ok) toast.warn(`Summarize: ${done.reason}`);
      return;
    }
    const withFiles = picked.choice !== 'conversation' && files?.ok === true && s.rewinder !== undefined;
    const rewinder = s.rewinder;
    let overwrite = false;
    if (withFiles && files.ok) {
      const answer = await this.askConflicts(files.plan, rewinder as FileRewinder, 'rewind');
      if (answer === 'cancel') return;
      overwrite = answer === 'overwrite';
    }
    const done = await s.commands.rewindTo(messageId, {
      conversation: picked.choice !== 'files',
      ...(withFiles && files.ok && rewinder
        ? { files: (id: string) => this.applyFiles(rewinder, id, files.plan, overwrite) }
        : {}),
    });
    if (!done.ok) {
      toast.warn(`Rewind: ${done.reason}`);
      return;
    }
    if (done.words !== undefined) this.toComposer(done.words);
  }

  /** The files of rewind `recordId` forward again (its Restore), asking about files changed since. */
  async undo(recordId: string): Promise<SendResult> {
    const rewinder = this.session()?.rewinder;
    const planned = this.markUnsaved(rewinder ? await rewinder.planUndo(recordId) : undefined);
    if (!planned || !rewinder) return { ok: true };
    if (!planned.ok) return planned;
    const answer = await this.askConflicts(planned.plan, rewinder, 'undo');
    if (answer === 'cancel') return { ok: false, reason: 'The undo of the rewind was cancelled; nothing changed.' };
    const applied = await rewinder.applyUndo(recordId, planned.plan, answer === 'overwrite');
    return this.report(applied, 'brought forward again');
  }

  dispose(): void {
    this.documents.clear();
    this.registration.dispose();
  }

  private async applyFiles(
    rewinder: FileRewinder,
    id: string,
    plan: FilesPlan,
    overwrite: boolean,
  ): Promise<SendResult> {
    const applied = await rewinder.apply(id, plan, overwrite);
    return this.report(applied, 'put back');
  }

  /** `planned` with the files open with unsaved changes in an editor as conflicts (withUnsavedConflicts). */
  private markUnsaved(planned: FilesPlanResult | undefined): FilesPlanResult | undefined {
    if (!planned?.ok) return planned;
    const dirty = new Set(
      vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file').map((d) => d.uri.fsPath),
    );
    const unsaved = (ref: FileRef) => dirty.has(vscode.Uri.file(`${ref.root}/${ref.path}`).fsPath);
    return { ok: true, plan: withUnsavedConflicts(planned.plan, unsaved, this.show) };
  }

  /** Says what failed or was skipped; an error value only when nothing could be recorded. */
  private report(applied: Awaited<ReturnType<FileRewinder['apply']>>, verb: string): SendResult {
    if (applied.error) return { ok: false, reason: applied.error };
    const notes = [
      ...applied.failed.map((f) => f.why),
      ...(applied.skipped.length > 0 ? [`left as you changed them: ${applied.skipped.map(this.show).join(', ')}`] : []),
    ];
    if (notes.length > 0) toast.warn(`Rewind: ${applied.done.length} file(s) ${verb}; ${notes.join('; ')}.`);
    this.log.info(`Rewind: ${applied.done.length} file(s) ${verb}${notes.length ? `; ${notes.join('; ')}` : ''}.`);
    return { ok: true };
  }

  /** Asks what to do with the plan's conflicts: overwrite, skip them, or cancel ('skip' when there are none). */
  private async askConflicts(
    plan: FilesPlan,
    rewinder: FileRewinder,
    what: 'rewind' | 'undo',
  ): Promise<'overwrite' | 'skip' | 'cancel'> {
    const conflicts = plan.steps.filter((s) => s.conflict);
    if (conflicts.length === 0) return 'skip';
    const list = conflicts.map((c) => `• ${c.conflict ?? this.show(c)}`).join('\n');
    const diffs = 'Show Diffs';
    const overwrite = 'Overwrite Them';
    const skip = 'Skip Them';
    for (;;) {
      const answer = await vscode.window.showWarningMessage(
        `${conflicts.length === 1 ? 'A file was' : `${conflicts.length} files were`} changed since Claude last left ${conflicts.length === 1 ? 'it' : 'them'}`,
        {
          modal: true,
          detail: `${list}\n\n${what === 'rewind' ? 'Rewinding' : 'Undoing the rewind'} would overwrite ${conflicts.length === 1 ? 'that change; its content now is kept' : 'those changes; their content now is kept'}, so undoing brings it back. Skip Them leaves ${conflicts.length === 1 ? 'it' : 'them'} as ${conflicts.length === 1 ? 'it is' : 'they are'} and puts the other files back.${conflicts.some((c) => c.conflict?.includes(UNSAVED_NOTE)) ? ' Unsaved changes stay in their editor, unsaved: the file on disk is what changes, and VS Code asks which to keep when you save.' : ''}`,
        },
        diffs,
        overwrite,
        skip,
      );
      if (answer === diffs) {
        for (const c of conflicts) await this.showDiff(c, rewinder);
        continue;
      }
      return answer === overwrite ? 'overwrite' : answer === skip ? 'skip' : 'cancel';
    }
  }

  /** The file as it is beside what the rewind would make it. */
  private async showDiff(step: FilesPlan['steps'][number], rewinder: FileRewinder): Promise<void> {
    const bytes = await rewinder.contentOf(step.to);
    const text = bytes ? new TextDecoder().decode(bytes) : '';
    const file = vscode.Uri.file(`${step.root}/${step.path}`);
    const after = vscode.Uri.from({ scheme: REWIND_SCHEME, path: file.path, query: `${Date.now()}` });
    this.documents.set(after.toString(), text);
    try {
      await vscode.commands.executeCommand('vscode.diff', file, after, `${this.show(step)}: now ↔ after the rewind`, {
        preview: false,
      });
    } catch (err) {
      this.log.warn(`Could not open the diff editor: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
