/**
 * The extension's log with the API key redacted from every line: whatever a message, an
 * Error's message or stack, or an extra argument holds, the key (core/redact.ts) never
 * reaches the Output channel. No `vscode` at run time (types only), so it is unit-tested.
 */
import type * as vscode from 'vscode';
import { redactSecrets } from '../core/security/redact';

/** The writing methods of a LogOutputChannel; everything else is passed through untouched. */
const WRITERS = new Set<PropertyKey>(['trace', 'debug', 'info', 'warn', 'error', 'append', 'appendLine', 'replace']);

/** Redacts one argument of a log call: strings, Errors (message and stack) and other values as JSON. */
function redactArg(arg: unknown, secrets: readonly (string | undefined)[]): unknown {
  if (typeof arg === 'string') return redactSecrets(arg, secrets);
  if (arg instanceof Error) return redactSecrets(arg.stack ?? `${arg.name}: ${arg.message}`, secrets);
  if (arg === null || typeof arg !== 'object') return arg;
  let json: string | undefined;
  try {
    json = JSON.stringify(arg);
  } catch {
    json = undefined; // cyclic: shown as its string form below
  }
  return redactSecrets(json ?? String(arg), secrets);
}

/**
 * `inner` with every argument of trace/debug/info/warn/error/append/appendLine/replace
 * redacted of the secrets `secrets()` returns at the time of the call.
 */
export function redactingLog<T extends Pick<vscode.LogOutputChannel, 'info'>>(
  inner: T,
  secrets: () => readonly (string | undefined)[],
): T {
  return new Proxy(inner, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (!WRITERS.has(prop)) return fn.bind(target);
      return (...args: unknown[]) => {
        const current = secrets();
        return fn.apply(
          target,
          args.map((a) => redactArg(a, current)),
        );
      };
    },
  });
}
