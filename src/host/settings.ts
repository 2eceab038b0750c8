import { LAYERED, SERVER_COMPACT } from '../core/engine/engineRegistry';
import { ENGINE_TIMEOUT_MS } from '../core/engine/engineSlot';
import * as vscode from 'vscode';
import { DEFAULT_DEFER_THRESHOLD_TOKENS } from '../core/tools/toolLoading';
import { DEFAULT_MODEL, resolveConfig, type ConfigResult, type PipelineSettings } from '../core/pipeline/config';
import { modelLimits } from './anthropic/modelLimitsCache';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings } from '../core/compaction/policy';
import { isServerStrategy } from '../core/server/serverContext';
import type { CacheLifetime } from '../core/conversation/conversationModel';
import type { ThinkingSetting } from '../core/models/thinking';
import { DEFAULT_INSTRUCTION_SETTINGS, MAX_INSTRUCTION_TOKENS } from '../core/projectContext/instructions';
import type { ProjectContextSettings } from './projectContext/projectContextSession';
import {
  COST_SETTINGS,
  ignoredSettingWarning,
  isBoolean,
  isString,
  userLevelValue,
  workspaceCostNotice,
  workspaceCostSettings,
} from './trustedSetting';
import { toast } from './toasts';
import { inBackground } from '../core/platform/background';
import type { Logger } from '../core/platform/platformPorts';

/** The configuration section every setting of the extension lives under. */
export const SETTINGS_SECTION = 'contextPipeline';

/**
 * Reads the user's settings (no secrets live here) and resolves them into a pipeline config,
 * with the Models API's limits for the model when they arrived (window order: setting, Models
 * API, table — see WindowSource).
 */
export function readPipelineConfig(): ConfigResult {
  const settings = readSettings();
  const model = (settings.model ?? '').trim() || DEFAULT_MODEL;
  return resolveConfig(settings, modelLimits.get(model, readAgentSettings().baseUrl));
}

/** The raw settings, as the user set them. */
export function readSettings(): PipelineSettings {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return {
    model: c.get<string>('model'),
    summarizerModel: c.get<string>('summarizerModel'),
    summarizer: c.get<string>('summarizer'),
    contextWindow: c.get<number>('contextWindow'),
    maxOutputTokens: c.get<number>('maxOutputTokens'),
    softThreshold: c.get<number>('softThreshold'),
    hardThreshold: c.get<number>('hardThreshold'),
    keepRecentTurns: c.get<number>('keepRecentTurns'),
    keepRecentTokens: c.get<number | null>('keepRecentTokens'),
    cacheTtl: c.get<CacheLifetime>('cacheTtl'),
    pasteThresholdChars: c.get<number>('pasteThresholdChars'),
    thinking: c.get<ThinkingSetting>('thinking'),
  };
}

/** Whether each kind of editor context is injected. */
export function readEditorContextSettings(): { selection: boolean; openedFile: boolean } {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return { selection: c.get<boolean>('injectSelection', true), openedFile: c.get<boolean>('injectOpenedFile', true) };
}

/** The settings `readProjectContextSettings` reads: a change to any of them reloads the project context. */
export const PROJECT_CONTEXT_SETTINGS: readonly string[] = [
  `${SETTINGS_SECTION}.instructions`,
  `${SETTINGS_SECTION}.workspaceFacts`,
];

/** The project-context settings (`contextPipeline.instructions.*`, `contextPipeline.workspaceFacts`), with their defaults. */
export function readProjectContextSettings(): ProjectContextSettings {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const d = DEFAULT_INSTRUCTION_SETTINGS;
  const max = c.get<number>('instructions.maxTokens', d.maxTokens);
  return {
    agentsMd: c.get<boolean>('instructions.agentsMd', d.agentsMd) !== false,
    claudeMd: c.get<boolean>('instructions.claudeMd', d.claudeMd) !== false,
    claudeLocalMd: c.get<boolean>('instructions.claudeLocalMd', d.claudeLocalMd) !== false,
    nested: c.get<boolean>('instructions.nested', d.nested) !== false,
    // The schema's maximum, enforced: VS Code does not stop a settings file from holding more.
    maxTokens:
      typeof max === 'number' && Number.isFinite(max)
        ? Math.min(MAX_INSTRUCTION_TOKENS, Math.max(0, Math.floor(max)))
        : d.maxTokens,
    workspaceFacts: c.get<boolean>('workspaceFacts', true) !== false,
  };
}

/**
 * The chosen context engine's id (`contextPipeline.contextEngine`). Before the setting existed
 * the API's compaction was the compactionStrategy `server-compact`: with the engine left at its
 * default, that value still chooses the `server-compact` engine (a notice says to move it).
 */
export function readContextEngine(): string {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const chosen = c.get<string>('contextEngine', LAYERED);
  const id = typeof chosen === 'string' && chosen.trim() ? chosen.trim() : LAYERED;
  if (id === LAYERED && c.get<string>('compactionStrategy') === SERVER_COMPACT) return SERVER_COMPACT;
  return id;
}

/** The time limit on a context engine's hook, in seconds: the setting's range and default. */
const ENGINE_TIMEOUT_SECONDS = { min: 1, max: 300, default: ENGINE_TIMEOUT_MS / 1000 } as const;

/**
 * How long a context engine's hook may take (`contextPipeline.contextEngineTimeoutSeconds`) in
 * milliseconds. An application setting: a workspace's value is ignored (a repository does not
 * decide how long a request may hang), as VS Code ignores it for that scope; clamped to the
 * schema's range (a settings file may hold more), the default for anything not a number.
 */
export function readEngineTimeoutMs(): number {
  const v = vscode.workspace.getConfiguration(SETTINGS_SECTION).inspect<unknown>('contextEngineTimeoutSeconds');
  const t = v?.globalValue;
  const { min, max } = ENGINE_TIMEOUT_SECONDS;
  const seconds =
    typeof t === 'number' && Number.isFinite(t) ? Math.min(max, Math.max(min, t)) : ENGINE_TIMEOUT_SECONDS.default;
  return Math.round(seconds * 1000);
}

/** Compaction settings, with the engine's defaults for what the user did not set. */
export function readCompactionSettings(): CompactionSettings {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  // The server-compact engine is the API's compaction behind our layers.
  const strategy =
    readContextEngine() === SERVER_COMPACT ? SERVER_COMPACT : c.get<string>('compactionStrategy', 'summarise');
  const soft = c.get<string>('autoCompact', 'auto');
  return {
    ...DEFAULT_COMPACTION_SETTINGS,
    strategy:
      strategy === 'middle-removal' ||
      strategy === 'oldest-removal' ||
      strategy === 'hybrid' ||
      isServerStrategy(strategy)
        ? strategy
        : 'summarise',
    softAction: soft === 'propose' || soft === 'off' ? soft : 'auto',
    summaryPolicy: c.get<string>('summaryPolicy', 'rolling') === 'stacked' ? 'stacked' : 'rolling',
    maskToolResults: c.get<boolean>('maskToolResults', true) !== false,
    clearAtLeastTokens: Math.max(0, Math.floor(c.get<number>('clearAtLeastTokens', 0) || 0)),
    reattachAfterCompaction: c.get<boolean>('reattachAfterCompaction', true) !== false,
    server: {
      triggerTokens: Math.max(0, Math.floor(c.get<number>('serverTriggerTokens', 0) || 0)),
      keepToolUses: Math.max(0, Math.floor(c.get<number>('serverKeepToolUses', 0) || 0)),
      // The server's clear_at_least reuses the minimum our own cheap edits free (one setting for one idea).
      clearAtLeastTokens: Math.max(0, Math.floor(c.get<number>('clearAtLeastTokens', 0) || 0)),
      excludeTools: (c.get<unknown[]>('serverExcludeTools', []) ?? []).filter(
        (t): t is string => typeof t === 'string' && t.trim() !== '',
      ),
    },
  };
}

/** Settings of the agent loop and its transport (the API key is not a setting). */
export interface AgentSettings {
  /** Alternative API base URL (a proxy, or the scripted test server); empty for Anthropic's. */
  readonly baseUrl: string;
  readonly enableRunCommand: boolean;
  readonly maxToolRounds: number;
  /** `contextPipeline.toolSearch.deferThreshold`: MCP definitions over this many tokens are deferred. */
  readonly deferThreshold: number;
}

/**
 * Reads the agent settings with their defaults. `baseUrl` and `enableRunCommand` come from
 * the user's settings only (see trustedSetting.ts): a value in the workspace or a folder is
 * ignored, with a warning shown once per window.
 */
export function readAgentSettings(): AgentSettings {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return {
    baseUrl: userOnly(c, 'baseUrl', isString, '').trim(),
    enableRunCommand: userOnly(c, 'enableRunCommand', isBoolean, false),
    maxToolRounds: Math.max(1, Math.floor(c.get<number>('maxToolRounds', 100))),
    deferThreshold: Math.max(0, Math.floor(c.get<number>('toolSearch.deferThreshold', DEFAULT_DEFER_THRESHOLD_TOKENS))),
  };
}

/** Settings whose ignored workspace value was already reported in this window. */
const warned = new Set<string>();

/** A setting's value from the user's settings only (see trustedSetting.ts); warns once when a workspace set it. */
export function userOnly<T>(
  c: vscode.WorkspaceConfiguration,
  key: string,
  isValue: (v: unknown) => v is T,
  fallback: T,
): T {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) =>
    vscode.workspace.getConfiguration(SETTINGS_SECTION, f.uri).inspect(key),
  );
  const r = userLevelValue(c.inspect(key), isValue, fallback, folders);
  const tag = `${key}:${r.ignored.join(',')}`;
  if (r.ignored.length > 0 && !warned.has(tag)) {
    warned.add(tag);
    toast.warn(ignoredSettingWarning(SETTINGS_SECTION, key, r.ignored));
  }
  return r.value;
}

/** The workspace cost settings already reported in this window (by what they were set to). */
let costNoticeShown = '';

/**
 * Says once per window (and again when they change) which cost settings the workspace sets.
 * Called on activation and when the extension's settings change, not on every read. A failure
 * to open the workspace settings from the notice's button goes to `log`.
 */
export function noteWorkspaceCostSettings(log: Pick<Logger, 'error'>): void {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const set = workspaceCostSettings(new Map(COST_SETTINGS.map((key) => [key, c.inspect(key)])));
  const tag = JSON.stringify(set);
  if (tag === costNoticeShown) return;
  costNoticeShown = tag;
  const notice = workspaceCostNotice(SETTINGS_SECTION, set);
  if (!notice) return;
  const opened = vscode.window
    .showInformationMessage(`Context Pipeline: ${notice}`, 'Open Workspace Settings')
    .then((pick) => (pick ? vscode.commands.executeCommand('workbench.action.openWorkspaceSettingsFile') : undefined));
  inBackground(opened, log, 'Opening the workspace settings');
}
