/**
 * A short, stable, non-cryptographic hash (FNV-1a, 32 bits) for telling apart names that were
 * cut to fit a limit. Never used on secrets. Pure.
 */

/** FNV-1a of `text`'s UTF-16 code units, as 8 lowercase hex digits. */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}
