import * as v from 'valibot';

/** What the chat webview keeps across reloads (VS Code's webview state): the draft, the sent history, the reading position. */
export interface ViewState {
  draft: string;
  history: string[];
  /** The item at the top of the viewport and the offset into it; absent while following the end. */
  reading?: { id: string; offset: number };
}

const Schema = v.object({
  draft: v.optional(v.string(), ''),
  history: v.optional(v.pipe(v.array(v.string()), v.maxLength(50)), []),
  reading: v.optional(v.object({ id: v.string(), offset: v.pipe(v.number(), v.finite()) })),
});

/**
 * The saved state, validated like any message: a field of the wrong shape (an older
 * version's state, a damaged one) falls back to its default instead of breaking the view.
 * Never throws.
 */
export function restoreViewState(saved: unknown): ViewState {
  const whole = v.safeParse(Schema, saved);
  if (whole.success) {
    const { draft, history, reading } = whole.output;
    return { draft, history, ...(reading ? { reading } : {}) };
  }
  // Keep what is valid field by field.
  const o = typeof saved === 'object' && saved !== null ? (saved as Record<string, unknown>) : {};
  const field = <T>(schema: v.GenericSchema<unknown, T>, value: unknown, fallback: T): T => {
    const r = v.safeParse(schema, value);
    return r.success ? r.output : fallback;
  };
  const reading = field(Schema.entries.reading, o.reading, undefined);
  return {
    draft: field(Schema.entries.draft, o.draft, ''),
    history: field(Schema.entries.history, o.history, []),
    ...(reading ? { reading } : {}),
  };
}
