/**
 * The fingerprint of a server's configuration, for "approval remembered per workspace and per
 * config: a changed config asks again". Taken over the configuration *as written* (variables
 * unresolved): what the workspace file asks to run is what the user approved; the value a
 * `${input:…}` later receives is the user's own and does not ask again.
 *
 * It covers the name, source, transport, command, args, cwd, url, and env and header names
 * *with their values*, so changing any of them changes it. Values may be secrets: the
 * canonical text is only ever handed to the injected hash (the host's SHA-256) and only the
 * digest leaves; it is never logged or stored. Pure.
 */
import type { McpServerConfig } from './mcpConfig';

/** A one-way hash (SHA-256 hex in the host). */
export type HashPort = (text: string) => string;

function sortedEntries(r: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The fingerprint of `server`'s configuration: `hash` of a canonical JSON of it, prefixed by a format version. */
export function configFingerprint(server: McpServerConfig, hash: HashPort): string {
  const l = server.launch;
  const canonical = JSON.stringify([
    1,
    server.name,
    server.source,
    l.transport,
    l.command ?? null,
    l.args,
    l.cwd ?? null,
    l.url ?? null,
    sortedEntries(l.env),
    sortedEntries(l.headers),
  ]);
  return `v1:${hash(canonical)}`;
}
