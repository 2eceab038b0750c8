/**
 * Writes the files a session spills (large pastes, oversized tool outputs) with the same
 * secret redaction the session file gets: the API key never lands on disk, whatever the
 * paste or the tool output held. Plain Node (no `vscode`), so it is unit-tested.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { redactSecrets } from '../../core/security/redact';

/** Writes one file: its folder created private (0700), the file private (0600). */
async function writePrivate(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, content, { encoding: 'utf8', mode: 0o600 });
}

/**
 * The `writeFile` port of the agent: `content` with every secret of `secrets()` (read at
 * each write) replaced by `[redacted]`, then written by `write`.
 */
export function spillWriter(
  secrets: () => readonly (string | undefined)[],
  write: (path: string, content: string) => Promise<void> = writePrivate,
): (path: string, content: string) => Promise<void> {
  return (path, content) => write(path, redactSecrets(content, secrets()));
}
