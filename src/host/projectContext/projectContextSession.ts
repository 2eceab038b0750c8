/**
 * The project context of one chat session: the instruction blocks and the workspace facts,
 * read once when the session starts (memoised; the first send awaits them) and again only on
 * Reload Project Instructions; and the nested instructions added after tool rounds, each file
 * once per session. It puts the blocks into the agent's system prompt between turns. No
 * `vscode` import: the extension passes VS Code ports, tests pass fakes.
 */
import type { CompletedToolCall } from '../../core/agent/contextAfterTools';
import type { Injection, Message, TextBlock } from '../../core/conversation/conversationModel';
import type { Clock, IdSource, Tokenizer } from '../../core/platform/platformPorts';
import {
  nestedInstructionNames,
  renderInstructionBlocks,
  truncationNotice,
  type InstructionSettings,
} from '../../core/projectContext/instructions';
import {
  nestedFoldersToCheck,
  nestedInstructionReminder,
  notReadNestedLine,
  type NestedFolder,
  type NotReadNested,
} from '../../core/projectContext/nested';
import {
  describeProjectContextChange,
  diffProjectContext,
  isProjectContextBlock,
  withProjectContext,
} from '../../core/projectContext/system';
import type { WorkspaceLocation } from '../../core/projectContext/paths';
import { isoDate, renderWorkspaceFacts } from '../../core/projectContext/workspaceFacts';
import { gatherGitFacts, within, type GitApi, type WaitForEvent } from './gitFacts';
import {
  instructionFilesIn,
  readFolderInstructions,
  readRootInstructions,
  type ProjectFiles,
} from './instructionReader';

/** The `contextPipeline.instructions.*` settings and `contextPipeline.workspaceFacts`. */
export interface ProjectContextSettings extends InstructionSettings {
  readonly workspaceFacts: boolean;
}

/** What the project context needs from the extension. */
export interface ProjectContextDeps {
  readonly files: ProjectFiles;
  /** The Git extension's API (undefined without it). */
  readonly git: () => Promise<GitApi | undefined>;
  readonly wait: WaitForEvent;
  readonly settings: () => ProjectContextSettings;
  readonly platform: string;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** The session's tokenizer: caps are counted with it. */
  readonly tokenizer: Tokenizer;
  /** Diagnostics (skipped nested files); optional. */
  readonly log?: (text: string) => void;
}

/** A chat notice about the project context. */
export interface ProjectNotice {
  readonly level: 'info' | 'warning';
  readonly text: string;
}

/** The project-context blocks (instructions, then facts) and the notices reading them produced. */
export interface LoadedProjectContext {
  readonly blocks: readonly TextBlock[];
  readonly notices: readonly ProjectNotice[];
}

/** The agent, as far as the project context touches it. */
export interface SystemTarget {
  readonly busy: boolean;
  readonly state: { readonly system: readonly TextBlock[] };
  update(patch: { readonly system: readonly TextBlock[] }): void;
}

/**
 * How long a message waits for the first read (milliseconds) before it goes without the
 * project context; the read still lands, from the next turn.
 */
export const PROJECT_CONTEXT_WAIT_MS = 15_000;

const STILL_READING_NOTICE =
  'The project instructions and workspace facts are still being read, so this message went without them; they join the system prompt from the next message.';

const UNTRUSTED_NOTICE =
  'This workspace is not trusted, so its project instructions (AGENTS.md, CLAUDE.md …) are not read. Trust the workspace, then run "Reload Project Instructions" to use them.';

/** The project context of one session (see the file comment). */
export class ProjectContextSession {
  private loading: Promise<LoadedProjectContext> | undefined;
  private current: LoadedProjectContext | undefined;
  private undelivered: ProjectNotice[] = [];
  private untrustedSaid = false;
  private lateSaid = false;
  /** Nested folders already looked in, and instruction files already injected (by origin). */
  private readonly checked = new Set<string>();
  private readonly injected = new Set<string>();
  /** Nested folders found to be another project's, with why: nothing at or below them is read. */
  private readonly thirdParty = new Map<string, string>();

  constructor(private readonly deps: ProjectContextDeps) {}

  /** Reads the project context once (later calls share the first read). */
  load(): Promise<LoadedProjectContext> {
    const started = this.deps.clock.now();
    this.loading ??= this.read().then((loaded) => {
      this.deps.log?.(`Project context read in ${this.deps.clock.now() - started} ms.`);
      this.current = loaded;
      this.undelivered.push(...loaded.notices);
      return loaded;
    });
    return this.loading;
  }

  /**
   * Before a turn: waits for the project context (at most PROJECT_CONTEXT_WAIT_MS for the
   * first read, then the message goes without it and a warning says so, once), puts it into
   * the agent's system prompt (unless a turn runs) and returns the notices not yet shown (each once).
   */
  async ready(agent: SystemTarget): Promise<ProjectNotice[]> {
    if (!this.current && (await within(this.load(), PROJECT_CONTEXT_WAIT_MS, this.deps.wait)) === undefined) {
      this.deps.log?.(
        `The project context was not read within ${PROJECT_CONTEXT_WAIT_MS} ms; the message goes without it.`,
      );
      if (this.lateSaid) return [];
      this.lateSaid = true;
      return [{ level: 'warning', text: STILL_READING_NOTICE }];
    }
    this.apply(agent);
    const notices = this.undelivered;
    this.undelivered = [];
    return notices;
  }

  /** Puts the latest project context into the agent's system prompt when no turn runs; true when it changed it. */
  apply(agent: SystemTarget): boolean {
    const blocks = this.current?.blocks;
    if (!blocks || agent.busy) return false;
    const now = agent.state.system.filter(isProjectContextBlock);
    if (now.length === blocks.length && now.every((b, i) => b === blocks[i])) return false;
    agent.update({ system: withProjectContext(agent.state.system, blocks) });
    return true;
  }

  /**
   * Reads instructions and facts again, applies them (at the next turn if one runs) and
   * returns the notices: what changed, with token deltas, first, then the reading's warnings.
   */
  async reload(agent: SystemTarget): Promise<ProjectNotice[]> {
    await this.loading?.catch(() => undefined);
    const before = this.current?.blocks ?? agent.state.system.filter(isProjectContextBlock);
    this.untrustedSaid = false;
    this.checked.clear();
    const loaded = await this.read();
    this.current = loaded;
    this.loading = Promise.resolve(loaded);
    this.undelivered = [];
    const applied = this.apply(agent);
    const change = describeProjectContextChange(diffProjectContext(before, loaded.blocks, this.deps.tokenizer));
    const later = agent.busy && !applied ? ' It applies from the next turn (a turn is running).' : '';
    return [
      { level: 'info', text: `${change}${later}` },
      ...loaded.notices.filter((n) => n.level === 'warning' || n.text === UNTRUSTED_NOTICE),
    ];
  }

  /** Remembers the nested instruction files a resumed session's history already carries. */
  seed(messages: readonly Message[]): void {
    for (const m of messages)
      for (const b of m.blocks)
        if (b.meta.source === 'reminder' && b.meta.origin !== undefined) this.injected.add(b.meta.origin);
  }

  /**
   * After a tool round: the nested instruction files of the folders the round read or edited
   * in, not yet injected this session. Folders and files not read (third-party, duplicate, too
   * large…) are told once to `note` (one chat line per round) and each to the log.
   */
  async afterTools(calls: readonly CompletedToolCall[], note?: (text: string) => void): Promise<Injection[]> {
    const settings = this.deps.settings();
    const names = nestedInstructionNames(settings);
    if (names.length === 0 || !this.deps.files.trusted()) return [];
    const folders = nestedFoldersToCheck(calls, this.deps.files.folders(), this.checked);
    const out: Injection[] = [];
    const notRead: NotReadNested[] = [];
    const judge = this.deps.files.thirdPartyJudge?.();
    for (const folder of folders) {
      this.checked.add(folder.display);
      const why = await this.notReadReason(folder, judge);
      if (why) {
        // Told only where an instruction file is: a git-ignored build folder without one is no news.
        for (const origin of await instructionFilesIn(this.deps.files, folder.at, names)) {
          this.deps.log?.(`Nested instructions ${origin} not read: ${why}.`);
          notRead.push({ what: origin, why });
        }
        continue;
      }
      const read = await readFolderInstructions(this.deps.files, folder.at, names);
      for (const s of read.skipped) {
        this.deps.log?.(`Nested instructions ${s.origin} not used: ${s.reason}.`);
        notRead.push({ what: s.origin, why: s.reason });
      }
      for (const file of read.files) {
        if (this.injected.has(file.origin)) continue;
        this.injected.add(file.origin);
        out.push(
          nestedInstructionReminder(file, folder.display, {
            maxTokens: settings.maxTokens,
            tokenizer: this.deps.tokenizer,
          }),
        );
      }
    }
    const line = notReadNestedLine(notRead);
    if (line) note?.(line);
    return out;
  }

  /**
   * Why nothing in `folder` is read as instructions (a dependency folder, another project's
   * folder as `judge` finds it, or inside one found earlier), undefined when it is this project's.
   */
  private async notReadReason(
    folder: NestedFolder,
    judge: ((at: WorkspaceLocation) => Promise<string | undefined>) | undefined,
  ): Promise<string | undefined> {
    if (folder.dependency) return 'installed or vendored code (a dependency folder)';
    for (const [outer, why] of this.thirdParty)
      if (folder.display.startsWith(`${outer}/`)) return `inside ${outer}/, ${why}`;
    const why = await judge?.(folder.at).catch(() => undefined);
    if (why) this.thirdParty.set(folder.display, why);
    return why;
  }

  /** Reads everything; never rejects (a failure becomes a warning and an empty project context). */
  private async read(): Promise<LoadedProjectContext> {
    try {
      return await this.readOrThrow();
    } catch (err) {
      return {
        blocks: [],
        notices: [
          {
            level: 'warning',
            text: `The project context could not be read: ${err instanceof Error ? err.message : String(err)}`,
          },
        ],
      };
    }
  }

  private async readOrThrow(): Promise<LoadedProjectContext> {
    const settings = this.deps.settings();
    const { files, clock, ids, tokenizer } = this.deps;
    const notices: ProjectNotice[] = [];
    const [instructions, facts] = await Promise.all([
      readRootInstructions(files, settings),
      settings.workspaceFacts ? this.facts() : Promise.resolve(undefined),
    ]);
    if (instructions.untrusted && !this.untrustedSaid) {
      this.untrustedSaid = true;
      notices.push({ level: 'info', text: UNTRUSTED_NOTICE });
    }
    const rendered = renderInstructionBlocks(
      instructions.files,
      { maxTokens: settings.maxTokens, tokenizer },
      { clock, ids },
    );
    const cut = truncationNotice(rendered.truncated, settings.maxTokens);
    if (cut) notices.push({ level: 'warning', text: cut });
    for (const s of instructions.skipped)
      notices.push({ level: 'warning', text: `Project instructions ${s.origin} not used: ${s.reason}.` });
    if (rendered.blocks.length > 0) {
      const list = rendered.blocks
        .map((b) => `${b.meta.origin ?? ''} (${tokenizer.count(b.text).toLocaleString('en-US')} tokens)`)
        .join(', ');
      notices.push({ level: 'info', text: `Project instructions in the system prompt: ${list}.` });
    }
    return { blocks: [...rendered.blocks, ...(facts ? [facts] : [])], notices };
  }

  private async facts(): Promise<TextBlock> {
    const roots = this.deps.files.folders();
    const git = await gatherGitFacts(await this.deps.git().catch(() => undefined), roots, this.deps.wait).catch(
      (err: unknown) => ({
        repositories: [],
        note: `the git state could not be read (${err instanceof Error ? err.message : String(err)})`,
      }),
    );
    return renderWorkspaceFacts(
      {
        folders: roots.map((r) => r.name),
        platform: this.deps.platform,
        date: isoDate(this.deps.clock.now()),
        repositories: git.repositories,
        ...(git.note !== undefined ? { gitNote: git.note } : {}),
      },
      { clock: this.deps.clock, ids: this.deps.ids },
    );
  }
}
