/**
 * Which files look like they hold secrets. One rule for every place that could hand a file's
 * content to the model: editor context never injects them, read_file and search refuse them,
 * and an edit to one is flagged on its approval card. Pure: paths only, no I/O.
 */

interface SecretRule {
  readonly pattern: RegExp;
  readonly reason: string;
}

/** Tried in order; each matches the whole last segment(s) of a `/`-separated path, case-insensitively. */
const RULES: readonly SecretRule[] = [
  { pattern: /(^|\/)\.env(\..*)?$/i, reason: '.env files hold keys and passwords' },
  { pattern: /(^|\/)\.envrc$/i, reason: '.envrc files export keys and passwords into the shell' },
  { pattern: /(^|\/)\.git\/config$/i, reason: "git's configuration can hold credentials in remote URLs" },
  { pattern: /(^|\/)\.git-credentials$/i, reason: 'it holds git credentials' },
  { pattern: /(^|\/)(\.npmrc|\.yarnrc\.yml|\.pypirc)$/i, reason: 'package-registry configuration holds auth tokens' },
  { pattern: /(^|\/)\.netrc$/i, reason: 'it holds login passwords' },
  { pattern: /(^|\/)(\.aws\/credentials|\.docker\/config\.json)$/i, reason: 'it holds cloud or registry credentials' },
  { pattern: /(^|\/)id_(rsa|dsa|ecdsa|ed25519)$/i, reason: 'it is a private SSH key' },
  { pattern: /(^|\/)[^/]*\.(pem|key|p12|pfx|keystore|jks)$/i, reason: 'it is a key or certificate store' },
  { pattern: /(^|\/)\.ssh\/[^/]+$/i, reason: 'SSH configuration and keys live in .ssh' },
  { pattern: /(^|\/)\.kube\/config$/i, reason: 'it holds Kubernetes cluster credentials' },
  { pattern: /(^|\/)\.pgpass$/i, reason: 'it holds database passwords' },
  {
    pattern: /(^|\/)(credentials\.json|service-account[^/]*\.json|[^/]*\.tfvars)$/i,
    reason: 'files of this name usually hold service credentials or deployment secrets',
  },
];

/** Normalises a path for the rules: `/` separators, no ` (unsaved)` suffix of untitled documents. */
function normalise(path: string): string {
  return path.replace(/\\/g, '/').replace(/ \(unsaved\)$/, '');
}

/** Why `path` looks like a secrets file (a phrase for a sentence), or undefined when it does not. */
export function secretFileReason(path: string): string | undefined {
  const p = normalise(path);
  return RULES.find((r) => r.pattern.test(p))?.reason;
}

/** Whether a path (workspace-relative or absolute, any separator) looks like a secrets file. */
export function looksLikeSecret(path: string): boolean {
  return secretFileReason(path) !== undefined;
}
