/**
 * The host's side of an `@` mention in the chat's composer: the files matching what was typed
 * (ranked by mentionRank.ts), and attaching the one chosen to the next message. The webview
 * only sends back a path it was offered; the host checks it again — offered, inside a
 * workspace folder, not a link out of it, not a secrets file, text, within the size limit —
 * before its content becomes an `attached_file` injection. No `vscode` here: the files and
 * the read are ports (workspaceFiles.ts, readFresh.ts), so it is unit-tested.
 */
import type { FreshRead } from '../../core/compaction/reattach';
import type { Injection } from '../../core/conversation/conversationModel';
import { toWellFormed } from '../../core/platform/text';
import { DEFAULT_TOOL_LIMITS } from '../../core/tools/limits';
import { isMentionPath, MAX_MENTION_RESULTS } from '../../protocol/chat';
import { READ_FRESH_MAX_BYTES } from '../tools/readFresh';
import { rankMentions } from './mentionRank';

/**
 * The most characters an attached file may have: what one tool result may hold (a larger file
 * is refused, not cut: the user asks Claude to read the part they need).
 */
export const MAX_ATTACHED_FILE_CHARS = DEFAULT_TOOL_LIMITS.maxResultChars;

/** How many offered paths are remembered (the most recent); only those may be attached. */
const OFFERED_MEMORY = 1000;

/** One file of a mention's results. */
export interface MentionItem {
  readonly path: string;
  readonly kind: 'file';
}

/** What mentions need: the workspace's files, a confined read, and the next message's context. */
export interface FileMentionsDeps {
  /** Workspace-relative paths a mention may name (see WorkspaceFiles). */
  files(): Promise<readonly string[]>;
  /** Reads a workspace-relative path confined to the workspace folders (readFresh's rules). Never rejects. */
  read(path: string): Promise<FreshRead>;
  /** Where an attached file, or why one was not, goes (NextTurnContext). */
  readonly nextTurn: {
    attach(file: Extract<Injection, { kind: 'attached_file' }>): void;
    refuse(path: string, reason: string): void;
  };
}

/** Answers mention queries and attaches the files chosen; see the file comment. */
export class FileMentions {
  private readonly offered = new Set<string>();
  /** Attachments being read: a message sent meanwhile waits for them (see settled). */
  private readonly reading = new Set<Promise<boolean>>();

  constructor(private readonly deps: FileMentionsDeps) {}

  /** The files matching `query`, most relevant first, at most {@link MAX_MENTION_RESULTS}; remembered as offered. */
  async query(query: string): Promise<MentionItem[]> {
    const paths = rankMentions(await this.deps.files(), query.trim(), MAX_MENTION_RESULTS);
    for (const p of paths) {
      this.offered.delete(p);
      this.offered.add(p);
    }
    while (this.offered.size > OFFERED_MEMORY) this.offered.delete(this.offered.values().next().value as string);
    return paths.map((path) => ({ path, kind: 'file' as const }));
  }

  /**
   * Attaches `path` to the next message, or records why it cannot be (a chip says so): a path
   * not offered by {@link query}, or one the read refuses (outside the workspace, a link out of
   * it, a secrets file, a folder, binary), or a file over {@link MAX_ATTACHED_FILE_CHARS}.
   * Resolves with whether it was attached; never rejects.
   */
  attach(path: string): Promise<boolean> {
    const done = this.attachNow(path).catch(() => {
      this.deps.nextTurn.refuse(path, 'it could not be read');
      return false;
    });
    this.reading.add(done);
    // `done` cannot reject (the catch above refuses the file), so neither can its finally.
    void done.finally(() => this.reading.delete(done));
    return done;
  }

  /**
   * Resolves once every attachment asked for so far is attached or refused: a message sent
   * right after choosing a file goes with it (the webview posts `attachFile` before `send`).
   */
  async settled(): Promise<void> {
    await Promise.all([...this.reading]);
  }

  private async attachNow(path: string): Promise<boolean> {
    const reason = await this.problem(path);
    if (typeof reason === 'string') {
      this.deps.nextTurn.refuse(path, reason);
      return false;
    }
    this.deps.nextTurn.attach({ kind: 'attached_file', path, text: reason.text });
    return true;
  }

  private async problem(path: string): Promise<string | { readonly text: string }> {
    if (!isMentionPath(path) || !this.offered.has(path)) return 'it is not a file the picker offered';
    const read = await this.deps.read(path);
    if (!read.ok) return read.reason;
    if (read.bytes > READ_FRESH_MAX_BYTES || read.text.length > MAX_ATTACHED_FILE_CHARS)
      return `it is too large to attach (${read.bytes.toLocaleString('en-US')} bytes; at most ${MAX_ATTACHED_FILE_CHARS.toLocaleString('en-US')} characters): ask Claude to read the part you need`;
    // A lone surrogate would be stored and resent with every later request, which the API rejects.
    return { text: toWellFormed(read.text) };
  }
}
