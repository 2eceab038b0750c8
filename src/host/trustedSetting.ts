/**
 * Settings that decide where requests (and the API key) go or what may run are taken from
 * the user's own settings only: a cloned repository's `.vscode/settings.json` or
 * `*.code-workspace` must not redirect the key or enable shell commands. This module picks
 * the user-level value out of what VS Code's `inspect()` reports. Pure: no `vscode` import,
 * so it is unit-tested directly.
 */

/** The fields of `WorkspaceConfiguration.inspect()` this module reads. */
export interface InspectedSetting {
  readonly defaultValue?: unknown;
  readonly globalValue?: unknown;
  readonly workspaceValue?: unknown;
  readonly workspaceFolderValue?: unknown;
  readonly globalLanguageValue?: unknown;
  readonly workspaceLanguageValue?: unknown;
  readonly workspaceFolderLanguageValue?: unknown;
}

/** Where an ignored value was set. */
export type IgnoredScope = 'workspace' | 'workspace folder';

/** A user-level value and the workspace-level values that were ignored. */
export interface TrustedValue<T> {
  readonly value: T;
  readonly ignored: readonly IgnoredScope[];
}

/**
 * The user's value of a setting (`globalValue`), else its default, else `fallback` — each
 * only when `isValue` accepts it. Values from the workspace, from workspace folders (`folders`
 * holds what `inspect()` reported with each folder as the scope) or language-specific
 * workspace values are never used; they are listed in `ignored` so the caller can say so.
 */
export function userLevelValue<T>(
  inspected: InspectedSetting | undefined,
  isValue: (v: unknown) => v is T,
  fallback: T,
  folders: readonly (InspectedSetting | undefined)[] = [],
): TrustedValue<T> {
  const ignored: IgnoredScope[] = [];
  if (inspected?.workspaceValue !== undefined || inspected?.workspaceLanguageValue !== undefined)
    ignored.push('workspace');
  if (
    [inspected, ...folders].some(
      (f) => f?.workspaceFolderValue !== undefined || f?.workspaceFolderLanguageValue !== undefined,
    )
  )
    ignored.push('workspace folder');
  const user = inspected?.globalValue;
  const byDefault = inspected?.defaultValue;
  const value = isValue(user) ? user : isValue(byDefault) ? byDefault : fallback;
  return { value, ignored };
}

/** Why each user-only setting ignores the workspace, in words for the warning. */
const WHY: Readonly<Record<string, string>> = {
  baseUrl: 'where requests — and your API key — go',
  enableRunCommand: 'whether Claude may run shell commands',
  'subagents.allowEdits': 'whether subagents may propose edits and commands',
};

/**
 * The one-time warning shown when a workspace set a user-only setting: which setting, that
 * it was ignored and why, and where to set it instead.
 */
export function ignoredSettingWarning(section: string, key: string, ignored: readonly IgnoredScope[]): string {
  const where =
    ignored.includes('workspace') && ignored.includes('workspace folder')
      ? 'workspace and folder settings'
      : ignored.includes('workspace')
        ? 'workspace settings'
        : 'folder settings';
  const what = WHY[key] ?? 'this setting';
  return `Context Pipeline ignored \`${section}.${key}\` in this ${where}: ${what} is taken only from your user settings, so a repository you open cannot change it. If you meant it, set it in your user settings.`;
}

/** Type guard for string settings. */
export const isString = (v: unknown): v is string => typeof v === 'string';
/** Type guard for boolean settings. */
export const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';

/**
 * Settings a workspace may set that decide what each request costs (the model, its reasoning
 * and output budget, the cache's lifetime, how long a turn may run, how much of the project's
 * instruction files goes into every request): honoured, since a
 * project may need them, but said once so a cloned repository cannot raise the bill quietly.
 */
export const COST_SETTINGS: readonly string[] = [
  'model',
  'summarizerModel',
  'thinking',
  'maxOutputTokens',
  'contextWindow',
  'cacheTtl',
  'maxToolRounds',
  'instructions.maxTokens',
];

/**
 * The notice for the cost settings the workspace (or a folder) sets to something other than
 * the user's own value, or undefined when it sets none: which settings, to what, and that
 * they override the user's. Values are shown as JSON, cut at 60 characters.
 */
export function workspaceCostNotice(
  section: string,
  set: readonly { readonly key: string; readonly value: unknown }[],
): string | undefined {
  if (set.length === 0) return undefined;
  const list = set
    .map(({ key, value }) => {
      const shown = JSON.stringify(value) ?? String(value);
      return `${section}.${key} = ${shown.length > 60 ? `${shown.slice(0, 59)}…` : shown}`;
    })
    .join(', ');
  return `This workspace's settings choose ${list}. They decide what each request costs and override your user settings; change them in the workspace settings if you did not mean them.`;
}

/**
 * The cost settings of `inspected` (key → what inspect() reported) that the workspace or a
 * folder sets to another value than the user's; a folder's value wins, as in VS Code.
 */
export function workspaceCostSettings(
  inspected: ReadonlyMap<string, InspectedSetting | undefined>,
): { readonly key: string; readonly value: unknown }[] {
  const out: { key: string; value: unknown }[] = [];
  for (const key of COST_SETTINGS) {
    const i = inspected.get(key);
    const value = i?.workspaceFolderValue ?? i?.workspaceValue;
    if (value !== undefined && JSON.stringify(value) !== JSON.stringify(i?.globalValue)) out.push({ key, value });
  }
  return out;
}
