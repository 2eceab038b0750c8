import * as v from 'valibot';

/**
 * The pressure of a prompt on the context window, as the host computed it (core's
 * `contextPressure`, the one rule): the webviews colour and mark their bars with these
 * figures and never recompute a threshold or the effective window.
 */
export const PressureSchema = v.strictObject({
  /** `ok` below the soft threshold, `soft`/`hard` at or past one, `over` larger than the effective window. */
  level: v.picklist(['ok', 'soft', 'hard', 'over']),
  /** Prompt tokens / effective window (may exceed 1). */
  utilisation: v.number(),
  /** Window − output reserve, in tokens. */
  effectiveWindow: v.number(),
  /** Prompt tokens at which the soft threshold is crossed. */
  softAt: v.number(),
  /** Prompt tokens at which the hard threshold is crossed. */
  hardAt: v.number(),
  /** The one "% full": prompt tokens as a whole percentage of the effective (usable) window. */
  percentFull: v.number(),
  /** `percentFull` and what it is of, as every surface says it: `62 % of the 168k usable window`. */
  fullness: v.pipe(v.string(), v.maxLength(200)),
  /** The soft threshold in words: `70 % (118k)`. */
  softMark: v.pipe(v.string(), v.maxLength(200)),
  /** The hard threshold in words: `90 % (151k)`. */
  hardMark: v.pipe(v.string(), v.maxLength(200)),
  /** What crossing the soft threshold does (the `contextPipeline.autoCompact` setting), added by the host; absent: unknown. */
  softAction: v.optional(v.picklist(['auto', 'propose', 'off'])),
});

/** A validated pressure figure (see {@link PressureSchema}). */
export type PressureFigures = v.InferOutput<typeof PressureSchema>;
