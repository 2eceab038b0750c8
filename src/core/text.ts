/**
 * Small string helpers that respect UTF-16 surrogate pairs, so a cut never leaves half a
 * character (which would be invalid JSON for the API).
 */

/** Largest index ≤ `index` that does not fall between the halves of a surrogate pair. */
export function safeCutIndex(text: string, index: number): number {
  if (index <= 0) return 0;
  if (index >= text.length) return text.length;
  const code = text.charCodeAt(index);
  const prev = text.charCodeAt(index - 1);
  const isLow = code >= 0xdc00 && code <= 0xdfff;
  const prevHigh = prev >= 0xd800 && prev <= 0xdbff;
  return isLow && prevHigh ? index - 1 : index;
}

/** The first `maxChars` characters of `text`, never splitting a surrogate pair. */
export function headChars(text: string, maxChars: number): string {
  return text.slice(0, safeCutIndex(text, maxChars));
}

/** Counts lines the way an editor shows them (a trailing newline does not add a line). */
export function lineCount(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

/** A human size like `10.0 MB` or `812 B` (decimal units). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** UTF-8 byte length of a string, without allocating a buffer. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
