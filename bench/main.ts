/**
 * Bench entry: `npm run bench -- <subcommand> [args…]`. To add a subcommand, add an entry
 * to `COMMANDS`; an unknown or missing subcommand prints the usage and exits with 2.
 */
import { runEstimate } from './estimate';
import { runPipelineCost } from './pipelineCost';
import { runReadmeTable } from './readmeTableRun';
import { runRemoval } from './removal';
import { runSubagentsBench } from './subagents';
import { runReplay } from './replay';
import { runReplayAll } from './replayAll';
import { runTokenizerBench } from './tokenizer';
import { runTools } from './tools/run';
import { runTranscriptWindow } from './transcriptWindow';
import { runUnseen } from './unseen/run';

/** A bench subcommand: a one-line usage and a runner returning the exit code. */
interface Command {
  readonly usage: string;
  readonly run: (args: readonly string[]) => Promise<number>;
}

const COMMANDS: Readonly<Record<string, Command>> = {
  estimate: {
    usage: 'estimate <transcript.jsonl> [--encoding cl100k_base|o200k_base]   token-estimate error vs reported usage',
    run: runEstimate,
  },
  replay: {
    usage:
      'replay <transcript.jsonl> [--window N] [--policy P] [--baseline]    the whole pipeline over a transcript under one policy: compactions, peak, cache, cost, retention',
    run: runReplay,
  },
  'replay-all': {
    usage:
      'replay-all [dir] [--windows N,…]                                      every transcript of dir (test/fixtures) at 100k and 200k (or N,…) under every policy: one table',
    run: runReplayAll,
  },
  'readme-table': {
    usage:
      'readme-table <replay-all output> [README.md] [docs/benchmarks.md]    the benchmark docs (README summary, full tables) from a saved replay-all run; = npm run docs:bench',
    run: runReadmeTable,
  },
  unseen: {
    usage:
      'unseen [--out DIR] [--only S] [--windows N,…] [--policies P,…]        42 generated sessions unlike the fixtures (huge results, images, warts …) at 100k and 200k under default and baseline: one table',
    run: runUnseen,
  },
  tools: {
    usage:
      'tools [--window N] [--k N] [--sets DIR] [dir…]                       MCP tool sets (bench/tools/sets/): tokens per request and replay cost of the fixtures, eager vs deferred',
    run: runTools,
  },
  subagents: {
    usage:
      'subagents                                                             a scripted exploration read in the parent vs by subagents: parent prompt tokens and cost, subagents billed',
    run: async () => runSubagentsBench(),
  },
  tokenizer: {
    usage:
      'tokenizer                                                             token counting of 200 KB per content class (CJK, emoji, marks, runs …) vs English prose',
    run: async () => runTokenizerBench(),
  },
  window: {
    usage:
      'window                                                                the virtualised transcript: height index build, window per scroll, height update at 2k/20k/200k items',
    run: async () => {
      runTranscriptWindow();
      return 0;
    },
  },
  removal: {
    usage:
      'removal                                                               middle / oldest removal and hybrid at 1k, 4k and 16k messages: time and tokensOf calls',
    run: async () => {
      runRemoval();
      return 0;
    },
  },
  pipeline: {
    usage:
      'pipeline                                                              per-turn pipeline cost at 10k, 100k and 1M tokens vs JSON.stringify',
    run: async () => {
      runPipelineCost();
      return 0;
    },
  },
};

function usage(): string {
  return (
    [
      'usage: npm run bench -- <subcommand> [args…]',
      '',
      'subcommands:',
      ...Object.values(COMMANDS).map((c) => `  ${c.usage}`),
    ].join('\n') + '\n'
  );
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...args] = argv;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) {
    if (name !== undefined) process.stderr.write(`unknown subcommand "${name}"\n`);
    process.stderr.write(usage());
    return 2;
  }
  return command.run(args);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // The message names the problem (e.g. "file.jsonl:12: …"); BENCH_DEBUG=1 adds the stack.
    const debug = process.env.BENCH_DEBUG === '1';
    process.stderr.write(
      `error: ${err instanceof Error ? (debug ? (err.stack ?? err.message) : err.message) : String(err)}\n`,
    );
    process.exitCode = 1;
  },
);
