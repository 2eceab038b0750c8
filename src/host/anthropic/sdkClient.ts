import Anthropic from '@anthropic-ai/sdk';
import { ANTHROPIC_ORIGIN } from '../../core/security/endpoint';

/** What one SDK client is built from: the key, where it goes (the user's setting) and a timeout. */
export interface SdkClientSpec {
  readonly apiKey: string;
  /** The user's `contextPipeline.baseUrl`, already checked; empty or absent means Anthropic's API. */
  readonly baseUrl?: string;
  readonly timeoutMs: number;
}

/**
 * Builds the SDK client with nothing taken from the extension host's environment but what the
 * caller passes. The SDK otherwise reads `ANTHROPIC_BASE_URL` when no base URL is given (and
 * would send the key there) and merges `ANTHROPIC_CUSTOM_HEADERS` into every request; a
 * repository can set both for the extension host (a dev container's `remoteEnv`), and where
 * requests and the key go is the user's setting alone. So the base URL is always explicit
 * (Anthropic's API when the setting is empty), each header the environment would add is
 * removed (a null default header removes it: the SDK's `buildHeaders`), and the log level is
 * fixed so `ANTHROPIC_LOG=debug` cannot print request bodies. SDK retries are off: the caller
 * runs its own loop. Reads `env` (default `process.env`) only for the names to remove.
 */
export function newSdkClient(spec: SdkClientSpec, env: NodeJS.ProcessEnv = process.env): Anthropic {
  return new Anthropic({
    apiKey: spec.apiKey,
    baseURL: spec.baseUrl || ANTHROPIC_ORIGIN,
    defaultHeaders: removedEnvHeaders(env.ANTHROPIC_CUSTOM_HEADERS),
    logLevel: 'warn',
    maxRetries: 0,
    timeout: spec.timeoutMs,
  });
}

/** Each header named in `ANTHROPIC_CUSTOM_HEADERS` ("Name: value" lines, as the SDK parses it), set to null. */
export function removedEnvHeaders(customHeaders: string | undefined): Record<string, null> {
  const removed: Record<string, null> = {};
  for (const line of (customHeaders ?? '').split('\n')) {
    const colon = line.indexOf(':');
    if (colon >= 0) removed[line.substring(0, colon).trim()] = null;
  }
  return removed;
}
