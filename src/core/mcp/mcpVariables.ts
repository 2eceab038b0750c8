/**
 * Resolves the variables of a server's launch, as VS Code does in `mcp.json`:
 * `${workspaceFolder}`, `${workspaceFolderBasename}`, `${userHome}`, `${env:NAME}` and
 * `${input:ID}` (through the host's prompt or secret store). A variable that cannot be resolved,
 * and any other `${…}`, refuses the server with a message naming the server and the variable
 * (never a value). Pure, behind the input port.
 */
import type { McpInputSpec, McpLaunch, McpServerConfig } from './mcpConfig';
import { MCP_SOURCE_LABEL } from './mcpConfig';

/** What the variables resolve against. */
export interface VariableContext {
  /** The first workspace folder's path; undefined without a folder. */
  readonly workspaceFolder: string | undefined;
  readonly userHome: string;
  /** The extension host's environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Asks for `${input:ID}`: the host prompts (a password box for `spec.password`) or answers from
 * its secret store. Undefined when the user dismissed it or nothing is known.
 */
export type InputResolver = (id: string, spec: McpInputSpec | undefined, server: string) => Promise<string | undefined>;

/** The resolved launch and the values to redact from logs and messages (env, header and input values), or why not. */
export type ResolvedLaunch =
  | { readonly ok: true; readonly launch: McpLaunch; readonly secrets: readonly string[] }
  | { readonly ok: false; readonly error: string };

const VARIABLE = /\$\{([^}]*)\}/g;

/** The last segment of a path (either slash). */
function basename(path: string): string {
  const parts = path.split(/[\\/]+/).filter((p) => p !== '');
  return parts[parts.length - 1] ?? path;
}

class Unresolved extends Error {}

/** `launch` with every variable resolved; throws Unresolved naming the first that cannot be. */
async function resolveAll(
  server: McpServerConfig,
  ctx: VariableContext,
  ask: InputResolver,
  inputValues: string[],
): Promise<McpLaunch> {
  const inputs = new Map<string, string>();
  const one = async (text: string): Promise<string> => {
    let out = '';
    let last = 0;
    for (const m of text.matchAll(VARIABLE)) {
      out += text.slice(last, m.index);
      last = m.index + m[0].length;
      out += await variable(m[1] ?? '');
    }
    return out + text.slice(last);
  };
  const variable = async (name: string): Promise<string> => {
    if (name === 'workspaceFolder' || name === 'workspaceFolderBasename') {
      if (ctx.workspaceFolder === undefined) throw new Unresolved(`\${${name}} needs an open workspace folder`);
      return name === 'workspaceFolder' ? ctx.workspaceFolder : basename(ctx.workspaceFolder);
    }
    if (name === 'userHome') return ctx.userHome;
    if (name.startsWith('env:')) {
      const value = ctx.env[name.slice(4)];
      if (value === undefined)
        throw new Unresolved(`\${${name}}: the environment variable ${name.slice(4)} is not set`);
      return value;
    }
    if (name.startsWith('input:')) {
      const id = name.slice(6);
      const known = inputs.get(id);
      if (known !== undefined) return known;
      const value = await ask(
        id,
        server.inputs.find((i) => i.id === id),
        server.name,
      );
      if (value === undefined) throw new Unresolved(`\${${name}} was not given a value`);
      inputs.set(id, value);
      inputValues.push(value);
      return value;
    }
    throw new Unresolved(
      `\${${name}} is not a supported variable (supported: workspaceFolder, workspaceFolderBasename, userHome, env:NAME, input:ID)`,
    );
  };
  const record = async (r: Readonly<Record<string, string>>): Promise<Record<string, string>> => {
    const out: Record<string, string> = {};
    for (const [k, val] of Object.entries(r)) out[k] = await one(val);
    return out;
  };
  const l = server.launch;
  const args: string[] = [];
  for (const a of l.args) args.push(await one(a));
  return {
    transport: l.transport,
    command: l.command === undefined ? undefined : await one(l.command),
    args,
    env: await record(l.env),
    cwd: l.cwd === undefined ? undefined : await one(l.cwd),
    url: l.url === undefined ? undefined : await one(l.url),
    headers: await record(l.headers),
  };
}

/** Resolves `server`'s launch; each `${input:ID}` is asked once. Never throws. */
export async function resolveLaunch(
  server: McpServerConfig,
  ctx: VariableContext,
  ask: InputResolver,
): Promise<ResolvedLaunch> {
  const inputValues: string[] = [];
  try {
    const launch = await resolveAll(server, ctx, ask, inputValues);
    const secrets = [...Object.values(launch.env), ...Object.values(launch.headers), ...inputValues];
    return { ok: true, launch, secrets };
  } catch (e) {
    const reason = e instanceof Unresolved ? e.message : 'a variable could not be resolved';
    return { ok: false, error: `MCP server "${server.name}" in ${MCP_SOURCE_LABEL[server.source]}: ${reason}.` };
  }
}
