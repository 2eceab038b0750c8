/** The HashPort (core/mcp/mcpFingerprint.ts) as SHA-256 hex, through Node's crypto. No `vscode`. */
import { createHash } from 'node:crypto';

/** SHA-256 of `text` (UTF-8), as 64 hex digits. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
