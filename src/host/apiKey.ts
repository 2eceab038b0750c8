import * as vscode from 'vscode';

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
  constructor(private readonly secrets: vscode.SecretStorage, private readonly env: NodeJS.ProcessEnv = process.env) {}

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

  /** Stores a key (trimmed); an empty value deletes the stored key. */
  async set(value: string): Promise<void> {
    const key = value.trim();
    if (key) await this.secrets.store(SECRET_KEY, key);
    else await this.secrets.delete(SECRET_KEY);
  }

  /** Fires when the stored key changes (in this or another window). */
  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      if (e.key === SECRET_KEY) listener();
    });
  }
}

/** Checks the shape of an Anthropic key; returns a reason when it looks wrong. */
export function apiKeyProblem(value: string): string | undefined {
  const key = value.trim();
  if (!key) return undefined; // empty clears the stored key
  if (/\s/.test(key)) return 'An API key has no spaces or line breaks.';
  if (!key.startsWith('sk-ant-')) return 'Anthropic API keys start with "sk-ant-".';
  if (key.length < 20) return 'This key is too short to be an Anthropic API key.';
  return undefined;
}
