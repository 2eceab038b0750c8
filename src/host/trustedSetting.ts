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
