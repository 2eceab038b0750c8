/**
 * What a checkpoint knows about one workspace file at one moment: it did not exist, its
 * content is kept (by the SHA-256 of its bytes, the blob's name in the session's checkpoint
 * storage), it was too large to keep, or keeping it was refused (a symbolic link, a folder, an
 * unreadable file, a copy that could not be written). The words a person reads when a file's
 * content was not kept. Pure: the hash is computed by the host and arrives here as a string.
 */
import { formatBytes } from '../platform/text';

/** A file of the workspace: the workspace folder's real absolute path and the `/`-separated path inside it. */
export interface FileRef {
  readonly root: string;
  readonly path: string;
}

/** Which cap a file's content did not fit: the per-file one, or what the session may keep in all. */
export type CapKind = 'file' | 'session';

/**
 * Why a file's content was not kept although it exists: what it is (a symbolic link, or its
 * folder is one; a folder, a device…), that it could not be read, or that its copy could not
 * be written.
 */
export type RefusalKind = 'symlink' | 'not-a-file' | 'unreadable' | 'unsaved';

/**
 * A file's state. `content` means its bytes are kept as the blob `sha256` (its size in bytes);
 * `too-large` that it existed but was not kept, `capBytes` being the cap it did not fit (and
 * `sha256` its hash when it was read anyway, to compare); `refused` that it existed (or may
 * have) but was not read, `detail` saying why in words.
 */
export type FileState =
  | { readonly kind: 'absent' }
  | { readonly kind: 'content'; readonly sha256: string; readonly size: number }
  | {
      readonly kind: 'too-large';
      readonly size: number;
      readonly cap: CapKind;
      readonly capBytes: number;
      readonly sha256?: string;
    }
  | { readonly kind: 'refused'; readonly why: RefusalKind; readonly detail: string };

/** The state of a file that does not exist. */
export const ABSENT: FileState = { kind: 'absent' };

/** The one string that identifies `ref` in maps (its root and path joined by a NUL, which neither holds). */
export function fileKey(ref: FileRef): string {
  return `${ref.root}\u0000${ref.path}`;
}

/** A lower-case hexadecimal SHA-256, the name of a blob. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Whether a rewind can put the file back in `state`: it did not exist (delete it) or its
 * bytes are kept.
 */
export function restorable(state: FileState): boolean {
  return state.kind === 'absent' || state.kind === 'content';
}

/** Whether two states say the same about a file's content (both absent, or the same bytes). */
export function sameContent(a: FileState, b: FileState): boolean {
  if (a.kind === 'absent' || b.kind === 'absent') return a.kind === b.kind;
  const ha = a.kind === 'content' || a.kind === 'too-large' ? a.sha256 : undefined;
  const hb = b.kind === 'content' || b.kind === 'too-large' ? b.sha256 : undefined;
  return ha !== undefined && ha === hb;
}

/**
 * The notice a person reads when the content `shown` (a path as the chat shows it) had before
 * a change was not kept, so a rewind cannot put it back; undefined when it was kept (or the
 * file did not exist). E.g. `Checkpoint: assets/video.mp4 (14.2 MB) is larger than the 2.0 MB
 * a checkpoint keeps of one file; its content before this change was not saved, so a rewind
 * cannot put it back.`
 */
export function notKeptNotice(shown: string, state: FileState): string | undefined {
  const tail = 'its content before this change was not saved, so a rewind cannot put it back.';
  switch (state.kind) {
    case 'absent':
    case 'content':
      return undefined;
    case 'too-large':
      return state.cap === 'file'
        ? `Checkpoint: ${shown} (${formatBytes(state.size)}) is larger than the ${formatBytes(state.capBytes)} a checkpoint keeps of one file; ${tail}`
        : `Checkpoint: this session's checkpoint storage is full (${formatBytes(state.capBytes)}), so ${shown} (${formatBytes(state.size)}) was not kept: ${tail}`;
    case 'refused':
      return `Checkpoint: ${shown} was not kept (${state.detail}); ${tail}`;
  }
}
