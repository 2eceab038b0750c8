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
 * (Anthropic's API when the setting is empty), the SDK's constructor — the only place it reads
 * `ANTHROPIC_CUSTOM_HEADERS` — runs with that variable out of `process.env` (put back at once:
 * the constructor is synchronous), so no header of it is sent and none of the SDK's own
 * (`Authorization`, `anthropic-version` …) is displaced by one; the log level is fixed so
 * `ANTHROPIC_LOG=debug` cannot print request bodies. SDK retries are off: the caller runs its
 * own loop.
 */
export function newSdkClient(spec: SdkClientSpec): Anthropic {
  return withoutEnv('ANTHROPIC_CUSTOM_HEADERS', () => {
    return new Anthropic({
      apiKey: spec.apiKey,
      baseURL: spec.baseUrl || ANTHROPIC_ORIGIN,
      logLevel: 'warn',
      maxRetries: 0,
      timeout: spec.timeoutMs,
    });
  });
}

/** `make()` run with `process.env[name]` removed, restored afterwards (even when `make` throws). */
function withoutEnv<T>(name: string, make: () => T): T {
  if (!Object.prototype.hasOwnProperty.call(process.env, name)) return make();
  const saved = process.env[name];
  delete process.env[name];
  try {
    return make();
  } finally {
    process.env[name] = saved;
  }
}
