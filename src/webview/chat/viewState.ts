import * as v from 'valibot';
import { IMAGE_MEDIA_TYPES, MAX_MESSAGE_IMAGES } from '../../protocol/chat';
import type { AttachedImage } from './imageAttach';

/**
 * What the chat webview keeps across reloads (VS Code's webview state): the draft and the
 * images pasted for it, the sent history, the reading position, whether the plan is folded.
 */
export interface ViewState {
  draft: string;
  history: string[];
  /** Images waiting in the composer's tray. */
  images?: AttachedImage[];
  /** The item at the top of the viewport and the offset into it; absent while following the end. */
  reading?: { id: string; offset: number };
  /** The user folded the plan's checklist (absent: open). */
  planFolded?: boolean;
}

const Schema = v.object({
  draft: v.optional(v.string(), ''),
  history: v.optional(v.pipe(v.array(v.string()), v.maxLength(50)), []),
  reading: v.optional(v.object({ id: v.string(), offset: v.pipe(v.number(), v.finite()) })),
  planFolded: v.optional(v.boolean()),
  images: v.optional(
    v.pipe(
      v.array(
        v.object({
          name: v.string(),
          mediaType: v.picklist(IMAGE_MEDIA_TYPES),
          data: v.string(),
          width: v.number(),
          height: v.number(),
          scaledFrom: v.optional(v.object({ width: v.number(), height: v.number() })),
          tokens: v.number(),
        }),
      ),
      v.maxLength(MAX_MESSAGE_IMAGES),
    ),
  ),
});

/**
 * The saved state, validated like any message: a field of the wrong shape (an older
 * version's state, a damaged one) falls back to its default instead of breaking the view.
 * Never throws.
 */
export function restoreViewState(saved: unknown): ViewState {
  const whole = v.safeParse(Schema, saved);
  if (whole.success) {
    const { draft, history, reading, images, planFolded } = whole.output;
    return {
      draft,
      history,
      ...(reading ? { reading } : {}),
      ...(images?.length ? { images } : {}),
      ...(planFolded ? { planFolded } : {}),
    };
  }
  // Keep what is valid field by field.
  const o = typeof saved === 'object' && saved !== null ? (saved as Record<string, unknown>) : {};
  const field = <T>(schema: v.GenericSchema<unknown, T>, value: unknown, fallback: T): T => {
    const r = v.safeParse(schema, value);
    return r.success ? r.output : fallback;
  };
  const reading = field(Schema.entries.reading, o.reading, undefined);
  const images = field(Schema.entries.images, o.images, undefined);
  const planFolded = field(Schema.entries.planFolded, o.planFolded, undefined);
  return {
    draft: field(Schema.entries.draft, o.draft, ''),
    history: field(Schema.entries.history, o.history, []),
    ...(reading ? { reading } : {}),
    ...(images?.length ? { images } : {}),
    ...(planFolded ? { planFolded } : {}),
  };
}
