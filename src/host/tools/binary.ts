/**
 * Tells binary files from text by their first bytes (NUL bytes, or too many invalid UTF-8
 * sequences), and guesses what a binary file is from its magic number or extension.
 */
import { extname } from 'node:path';

/** Share of undecodable characters above which a sample counts as binary. */
const INVALID_RATIO = 0.1;

/** Whether `sample` (the first bytes of a file) looks binary: a NUL byte, or >10% invalid UTF-8. */
export function looksBinary(sample: Uint8Array): boolean {
  if (sample.length === 0) return false;
  if (sample.includes(0)) return true;
  const text = new TextDecoder('utf-8').decode(trimPartialUtf8(sample));
  let invalid = 0;
  for (const ch of text) if (ch === '\uFFFD') invalid++;
  return invalid / Math.max(1, text.length) > INVALID_RATIO;
}

const MAGIC: ReadonlyArray<readonly [string, ReadonlyArray<number | undefined>, number?]> = [
  ['PNG image', [0x89, 0x50, 0x4e, 0x47]],
  ['JPEG image', [0xff, 0xd8, 0xff]],
  ['GIF image', [0x47, 0x49, 0x46, 0x38]],
  ['WebP image', [0x52, 0x49, 0x46, 0x46, undefined, undefined, undefined, undefined, 0x57, 0x45, 0x42, 0x50]],
  ['BMP image', [0x42, 0x4d]],
  ['ICO icon', [0x00, 0x00, 0x01, 0x00]],
  ['PDF document', [0x25, 0x50, 0x44, 0x46]],
  ['ZIP archive (or a format built on ZIP: jar, docx, vsix…)', [0x50, 0x4b, 0x03, 0x04]],
  ['gzip archive', [0x1f, 0x8b]],
  ['7-Zip archive', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  ['xz archive', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ['bzip2 archive', [0x42, 0x5a, 0x68]],
  ['tar archive', [0x75, 0x73, 0x74, 0x61, 0x72], 257],
  ['ELF executable or library', [0x7f, 0x45, 0x4c, 0x46]],
  ['Windows executable or DLL', [0x4d, 0x5a]],
  ['Mach-O executable or library', [0xcf, 0xfa, 0xed, 0xfe]],
  ['Java class file', [0xca, 0xfe, 0xba, 0xbe]],
  ['WebAssembly module', [0x00, 0x61, 0x73, 0x6d]],
  ['SQLite database', [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66]],
  ['WOFF font', [0x77, 0x4f, 0x46, 0x46]],
  ['WOFF2 font', [0x77, 0x4f, 0x46, 0x32]],
  ['MP3 audio', [0x49, 0x44, 0x33]],
  ['MP4/QuickTime media', [0x66, 0x74, 0x79, 0x70], 4],
  ['UTF-16 text (only UTF-8 text can be read)', [0xff, 0xfe]],
  ['UTF-16 text (only UTF-8 text can be read)', [0xfe, 0xff]],
];

const BY_EXTENSION: Readonly<Record<string, string>> = {
  '.so': 'shared library',
  '.dylib': 'shared library',
  '.dll': 'Windows DLL',
  '.exe': 'Windows executable',
  '.o': 'object file',
  '.a': 'static library',
  '.pyc': 'Python bytecode',
  '.class': 'Java class file',
  '.ttf': 'TrueType font',
  '.otf': 'OpenType font',
  '.db': 'database file',
  '.bin': 'binary data',
};

/** A short human guess of what a binary file is, e.g. `PNG image`; `binary data` when unknown. */
export function guessBinaryType(sample: Uint8Array, path: string): string {
  for (const [name, bytes, at = 0] of MAGIC) {
    if (sample.length >= at + bytes.length && bytes.every((b, i) => b === undefined || sample[at + i] === b))
      return name;
  }
  return BY_EXTENSION[extname(path).toLowerCase()] ?? 'binary data';
}

/** `bytes` without a UTF-8 sequence cut off at its end (so a sample's last character is not counted invalid). */
function trimPartialUtf8(bytes: Uint8Array): Uint8Array {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = bytes[n - back] ?? 0;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? bytes.subarray(0, n - back) : bytes;
  }
  return bytes;
}
