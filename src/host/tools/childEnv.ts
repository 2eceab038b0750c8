/**
 * The environment run_command's child gets: the extension host's, without the API key. A
 * command Claude proposed (and the user approved at a glance) must not be able to read the
 * key from its environment. Pure.
 */

/** Variables that hold Anthropic credentials by name, whatever their value. */
export const CREDENTIAL_VARIABLES: readonly string[] = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'];

/** Secrets shorter than this are not matched against values (they would match ordinary ones). */
const MIN_SECRET_LENGTH = 8;

/**
 * A copy of `env` without CREDENTIAL_VARIABLES (any letter case, as Windows treats names)
 * and without any variable whose value contains one of `secrets` (the key in use, at least
 * 8 characters), then with `extra` set on top. `env` itself is not changed.
 */
export function childEnv(
  env: NodeJS.ProcessEnv,
  secrets: readonly string[],
  extra: Readonly<Record<string, string>> = {},
): NodeJS.ProcessEnv {
  const named = new Set(CREDENTIAL_VARIABLES.map((n) => n.toUpperCase()));
  const keys = secrets.map((s) => s.trim()).filter((s) => s.length >= MIN_SECRET_LENGTH);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || named.has(name.toUpperCase())) continue;
    if (keys.some((k) => value.includes(k))) continue;
    out[name] = value;
  }
  return { ...out, ...extra };
}
