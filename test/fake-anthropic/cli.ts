/**
 * Starts the fake Anthropic API by hand:
 *   npx tsx test/fake-anthropic/cli.ts --port 8787 [--window 200000] [--api-key KEY] [--log requests.jsonl]
 * Script it over HTTP (`POST /_fake/script`, see control.ts); stop it with Ctrl+C.
 */
import { parseArgs } from 'node:util';
import { startFakeAnthropic } from './server';

/** Parses the command line, starts the server and prints where it listens. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8787' },
      window: { type: 'string' },
      'api-key': { type: 'string' },
      log: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write('Usage: fake-anthropic [--port 8787] [--window 200000] [--api-key KEY] [--log file.jsonl]\n');
    return;
  }
  const int = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, got ${v}`);
    return n;
  };
  const window = int('window', values.window);
  const server = await startFakeAnthropic({
    port: int('port', values.port) ?? 8787,
    ...(window ? { window } : {}),
    ...(values['api-key'] ? { apiKey: values['api-key'] } : {}),
    ...(values.log ? { logFile: values.log } : {}),
  });
  process.stdout.write(`Fake Anthropic API (scripted test model) listening on ${server.url}\n`);
  process.stdout.write(
    `  window ${server.window} tokens; control routes under ${server.url}/_fake/ (script, requests, reset, window, clock, cache, health)\n`,
  );
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
