import type { ApiModelLimits } from '../../core/pipeline/config';

/** What one lookup gave: limits, or nothing (the table applies). */
type Entry = { readonly state: 'pending' } | { readonly state: 'done'; readonly limits?: ApiModelLimits };

/**
 * The Models API's limits per endpoint and model id, fetched at most once per session of the
 * extension host, in the background: `get` never waits and never fails (undefined until the
 * answer came, or when the API could not be reached — the maintained table then applies).
 * Keyed by the endpoint (the `baseUrl` setting, '' for Anthropic's API) too: what a proxy said
 * about a model is not taken for what another endpoint serves after the setting changed.
 */
export class ModelLimitsCache {
  private readonly entries = new Map<string, Entry>();

  /** The limits the Models API at `endpoint` gave for `model`, if it answered. */
  get(model: string, endpoint: string): ApiModelLimits | undefined {
    const e = this.entries.get(key(model, endpoint));
    return e?.state === 'done' ? e.limits : undefined;
  }

  /**
   * Starts fetching `model`'s limits from `endpoint` once (off the send path); `onResolved`
   * runs when they arrived.
   */
  ensure(
    model: string,
    endpoint: string,
    fetch: (id: string) => Promise<{ readonly ok: true; readonly limits: ApiModelLimits } | { readonly ok: false }>,
    onResolved?: () => void,
  ): void {
    const k = key(model, endpoint);
    if (!model || this.entries.has(k)) return;
    this.entries.set(k, { state: 'pending' });
    fetch(model).then(
      (r) => {
        this.entries.set(k, r.ok ? { state: 'done', limits: r.limits } : { state: 'done' });
        if (r.ok) onResolved?.();
      },
      () => this.entries.set(k, { state: 'done' }),
    );
  }
}

/** One entry's key: the endpoint and the model, apart. */
function key(model: string, endpoint: string): string {
  return `${endpoint}\u0000${model}`;
}

/** The extension's one cache (the Models API's figures do not change while VS Code runs). */
export const modelLimits = new ModelLimitsCache();
