import * as vscode from 'vscode';
import { apiKeyCharProblem, apiKeyProblem } from '../core/security/apiKeyCheck';

/** The SecretStorage key the Anthropic API key is stored under. */
const SECRET_KEY = 'contextPipeline.anthropicApiKey';

/** Where the API key would come from, without revealing it. */
export type ApiKeyStatus = 'secret-storage' | 'environment' | 'missing';

/**
 * Access to the Anthropic API key: VS Code's SecretStorage first, then the
 * ANTHROPIC_API_KEY environment variable. The key is never logged, persisted elsewhere
 * or sent to a webview; only its status is.
 */
export class ApiKeyStore {
  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** The key, or undefined when none is configured. */
  async get(): Promise<string | undefined> {
    const stored = await this.secrets.get(SECRET_KEY);
    if (stored) return stored;
    const fromEnv = this.env.ANTHROPIC_API_KEY?.trim();
    return fromEnv || undefined;
  }

  /** Where the key comes from. */
  async status(): Promise<ApiKeyStatus> {
    if (await this.secrets.get(SECRET_KEY)) return 'secret-storage';
    return this.env.ANTHROPIC_API_KEY?.trim() ? 'environment' : 'missing';
  }

  /**
   * Why the key in use cannot be sent (a control character, whitespace, non-ASCII), naming
   * where it comes from; undefined when it is fine or there is none. Never contains the key.
   */
  async problem(): Promise<string | undefined> {
    const stored = await this.secrets.get(SECRET_KEY);
    const key = stored || this.env.ANTHROPIC_API_KEY?.trim();
    const problem = key ? apiKeyCharProblem(key) : undefined;
    if (!problem) return undefined;
    return `The API key ${stored ? 'in secret storage' : 'in ANTHROPIC_API_KEY'} cannot be used: ${problem} Set it again with "Context Pipeline: Set API Key"${stored ? '' : ', or fix the variable and restart VS Code'}.`;
  }

  /**
   * Stores a key (trimmed); an empty value deletes the stored key. A key that fails
   * apiKeyProblem is not stored: the reason comes back instead.
   */
  async set(value: string): Promise<{ ok: true } | { ok: false; problem: string }> {
    const key = value.trim();
    const problem = apiKeyProblem(key);
    if (problem) return { ok: false, problem };
    if (key) await this.secrets.store(SECRET_KEY, key);
    else await this.secrets.delete(SECRET_KEY);
    return { ok: true };
  }

  /** Fires when the stored key changes (in this or another window). */
  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      if (e.key === SECRET_KEY) listener();
    });
  }
}

/** Checks the shape of an Anthropic key; returns a reason when it looks wrong (see core/apiKeyCheck.ts). */
export { apiKeyProblem };
