/**
 * What the composer holds after the host refused the message it last sent (`unsent`): pure,
 * so the rule is tested without a DOM (composer.ts applies it).
 */
import { MAX_MESSAGE_IMAGES } from '../../protocol/chat';
import type { AttachedImage } from './imageAttach';

/** A message as the composer holds it: the words in the box and the images in the tray. */
export interface ComposerDraft {
  readonly text: string;
  readonly images: readonly AttachedImage[];
}

/** The composer after a message was given back. */
export interface GivenBack extends ComposerDraft {
  /** Whether a message queued during the turn still goes when the turn ends. */
  readonly queued: boolean;
  /** Said above the box (why it holds more than was typed), or undefined. */
  readonly note: string | undefined;
}

/**
 * The refused message back in the composer, losing nothing: with the box and tray empty, as
 * it was. Otherwise its words go ahead of what was written since (not twice when the box
 * holds them already), its images ahead of those added since, and a message queued during
 * the turn no longer goes on its own — it would go without the refused one it may follow, and
 * with the refused one's images. A note says so, and how many images to remove when they are
 * more than a message takes.
 */
export function giveBack(refused: ComposerDraft, now: ComposerDraft & { readonly queued: boolean }): GivenBack {
  const typed = now.text.trim() !== '';
  if (!typed && now.images.length === 0) return { ...refused, queued: false, note: undefined };
  const text = !typed || now.text === refused.text ? refused.text : `${refused.text}\n\n${now.text}`;
  const images = [...refused.images, ...now.images];
  const since = now.queued ? 'the message you queued, which was not sent either' : 'what you added since';
  const over = images.length - MAX_MESSAGE_IMAGES;
  const note = [
    `Your last message was not sent: it is back in the box, ahead of ${since}. Edit it and send again.`,
    ...(over > 0 ? [`A message takes at most ${MAX_MESSAGE_IMAGES} images: remove ${over}.`] : []),
  ].join(' ');
  return { text, images, queued: false, note };
}
