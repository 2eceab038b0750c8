import * as vscode from 'vscode';
import { resolveConfig, type ConfigResult, type PipelineSettings } from '../core/config';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings } from '../core/compaction/policy';
import type { CacheTtl } from '../core/model';

/** The configuration section every setting of the extension lives under. */
export const SETTINGS_SECTION = 'contextPipeline';

/** Reads the user's settings (no secrets live here) and resolves them into a pipeline config. */
export function readPipelineConfig(): ConfigResult {
  return resolveConfig(readSettings());
}

/** The raw settings, as the user set them. */
export function readSettings(): PipelineSettings {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return {
    model: c.get<string>('model'),
    summarizerModel: c.get<string>('summarizerModel'),
    contextWindow: c.get<number>('contextWindow'),
    maxOutputTokens: c.get<number>('maxOutputTokens'),
    softThreshold: c.get<number>('softThreshold'),
    hardThreshold: c.get<number>('hardThreshold'),
    keepRecentTurns: c.get<number>('keepRecentTurns'),
    keepRecentTokens: c.get<number>('keepRecentTokens'),
    cacheTtl: c.get<CacheTtl>('cacheTtl'),
    pasteThresholdChars: c.get<number>('pasteThresholdChars'),
  };
}

/** Whether each kind of editor context is injected. */
export function readEditorContextSettings(): { selection: boolean; openedFile: boolean } {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return { selection: c.get<boolean>('injectSelection', true), openedFile: c.get<boolean>('injectOpenedFile', true) };
}

/** Compaction settings, with the engine's defaults for what the user did not set. */
export function readCompactionSettings(): CompactionSettings {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const strategy = c.get<string>('compactionStrategy', 'summarise');
  const soft = c.get<string>('autoCompact', 'auto');
  return {
    ...DEFAULT_COMPACTION_SETTINGS,
    strategy: strategy === 'middle-removal' || strategy === 'oldest-removal' || strategy === 'hybrid' ? strategy : 'summarise',
    softAction: soft === 'propose' || soft === 'off' ? soft : 'auto',
    maskToolResults: c.get<boolean>('maskToolResults', true),
  };
}

/** Settings of the agent loop and its transport (the API key is not a setting). */
export interface AgentSettings {
  /** Alternative API base URL (a proxy, or the scripted test server); empty for Anthropic's. */
  readonly baseUrl: string;
  readonly enableRunCommand: boolean;
  readonly maxToolRounds: number;
}

/** Reads the agent settings with their defaults. */
export function readAgentSettings(): AgentSettings {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return {
    baseUrl: (c.get<string>('baseUrl') ?? '').trim(),
    enableRunCommand: c.get<boolean>('enableRunCommand', false),
    maxToolRounds: Math.max(1, Math.floor(c.get<number>('maxToolRounds', 25))),
  };
}
