/**
 * Workspace facts: the workspace folders, the platform, today's date and the state of the git
 * repositories, rendered as one `<workspace_facts>` system block after the instructions. Names
 * of branches, files and commit subjects are workspace content: untrusted, so each is made one
 * line, clipped and neutralised. Pure: the host gathers the facts.
 */
import type { TextBlock } from '../conversation/conversationModel';
import type { Clock, IdSource } from '../platform/platformPorts';
import { headChars } from '../platform/text';
import { neutralizeProjectText } from './instructions';

/** At most this many changed files are named per repository. */
export const MAX_CHANGED_NAMES = 20;
/** At most this many recent commit subjects per repository. */
export const MAX_COMMITS = 5;

/** What one git repository looks like, as the host read it. */
export interface RepositoryFacts {
  /** Workspace-relative path of the repository's root ('.' for the single folder itself). */
  readonly root: string;
  /** The checked-out branch; undefined when HEAD is detached (then `commit` names it). */
  readonly branch?: string;
  readonly commit?: string;
  /** `remote/branch` the branch tracks, with how far ahead and behind it is. */
  readonly upstream?: string;
  readonly ahead?: number;
  readonly behind?: number;
  /** All changed files (staged, unstaged, merge, untracked), and the first names, workspace-relative. */
  readonly changedCount: number;
  readonly changed: readonly string[];
  /** Subjects of the last commits, newest first. */
  readonly commits: readonly string[];
}

/** Everything the facts block states. */
export interface WorkspaceFacts {
  readonly folders: readonly string[];
  readonly platform: string;
  /** YYYY-MM-DD, from the injected clock. */
  readonly date: string;
  readonly repositories: readonly RepositoryFacts[];
  /** Why there are no git facts, when there are none (no git extension, timed out …). */
  readonly gitNote?: string;
}

/** The local calendar date of `ms` as YYYY-MM-DD. */
export function isoDate(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Untrusted text as one safe, clipped line. */
function line(text: string, max = 200): string {
  const flat = text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
  const clipped = flat.length > max ? `${headChars(flat, max - 1)}…` : flat;
  return neutralizeProjectText(clipped);
}

function repositoryLines(r: RepositoryFacts): string[] {
  const out = [`Git repository ${line(r.root)}:`];
  const head =
    r.branch !== undefined
      ? `branch ${line(r.branch)}`
      : r.commit !== undefined
        ? `detached HEAD at ${line(r.commit, 12)}`
        : 'no commit checked out';
  const upstream =
    r.upstream !== undefined
      ? `, tracking ${line(r.upstream)} (${r.ahead ?? 0} ahead, ${r.behind ?? 0} behind)`
      : r.branch !== undefined
        ? ', no upstream'
        : '';
  out.push(`- ${head}${upstream}`);
  if (r.changedCount === 0) out.push('- no uncommitted changes');
  else {
    const names = r.changed.slice(0, MAX_CHANGED_NAMES).map((n) => line(n, 300));
    const more = r.changedCount > names.length ? `, and ${r.changedCount - names.length} more` : '';
    out.push(`- ${r.changedCount} changed ${r.changedCount === 1 ? 'file' : 'files'}: ${names.join(', ')}${more}`);
  }
  const commits = r.commits.slice(0, MAX_COMMITS);
  if (commits.length > 0) {
    out.push('- recent commits (newest first):');
    for (const c of commits) out.push(`  - ${line(c)}`);
  }
  return out;
}

/** The facts as the text of the `<workspace_facts>` block (deterministic for the same facts). */
export function workspaceFactsText(facts: WorkspaceFacts): string {
  const lines = [
    `Workspace ${facts.folders.length === 1 ? 'folder' : 'folders'}: ${facts.folders.length === 0 ? 'none open' : facts.folders.map((f) => line(f)).join(', ')}`,
    `Platform: ${line(facts.platform)}`,
    `Date at session start: ${facts.date}`,
  ];
  for (const r of facts.repositories) lines.push(...repositoryLines(r));
  if (facts.repositories.length === 0 && facts.gitNote !== undefined) lines.push(`Git: ${line(facts.gitNote)}`);
  return `<workspace_facts>\n${lines.join('\n')}\n</workspace_facts>`;
}

/** The facts as their system block: source `workspace`, pinned, never compactable. */
export function renderWorkspaceFacts(
  facts: WorkspaceFacts,
  deps: { readonly clock: Clock; readonly ids: IdSource },
): TextBlock {
  return {
    type: 'text',
    text: workspaceFactsText(facts),
    meta: {
      id: deps.ids.next('wsf'),
      tier: 3,
      source: 'workspace',
      createdAt: deps.clock.now(),
      pinned: true,
      compactable: false,
    },
  };
}
