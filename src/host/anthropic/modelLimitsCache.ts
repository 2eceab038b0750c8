import type { ApiModelLimits } from '../../core/pipeline/config';

/** What one lookup gave: limits, or nothing (the table applies). */
type Entry = { readonly state: 'pending' } | { readonly state: 'done'; readonly limits?: ApiModelLimits };

/**
 * The Models API's limits per model id, fetched at most once per session of the extension
 * host, in the background: `get` never waits and never fails (undefined until the answer came,
 * or when the API could not be reached — the maintained table then applies).
 */
export class ModelLimitsCache {
  private readonly entries = new Map<string, Entry>();

  /** The limits the Models API gave for `model`, if it answered. */
  get(model: string): ApiModelLimits | undefined {
    const e = this.entries.get(model);
    return e?.state === 'done' ? e.limits : undefined;
  }

  /** Starts fetching `model`'s limits once (off the send path); `onResolved` runs when they arrived. */
  ensure(
    model: string,
    fetch: (id: string) => Promise<{ readonly ok: true; readonly limits: ApiModelLimits } | { readonly ok: false }>,
    onResolved?: () => void,
  ): void {
    if (!model || this.entries.has(model)) return;
    this.entries.set(model, { state: 'pending' });
    void fetch(model).then(
      (r) => {
        this.entries.set(model, r.ok ? { state: 'done', limits: r.limits } : { state: 'done' });
        if (r.ok) onResolved?.();
      },
      () => this.entries.set(model, { state: 'done' }),
    );
  }
}

/** The extension's one cache (the Models API's figures do not change while VS Code runs). */
export const modelLimits = new ModelLimitsCache();
