/**
 * `npm run bench -- subagents`: what subagents save the parent, on one scripted scenario run
 * through the real pipeline (AgentSession, its turn loop, cache breakpoints, task and the
 * subagent runner) against the fake Anthropic server over HTTP (its tokenizer, its simulated
 * prompt cache, its clock for the idle gaps).
 *
 * The scenario: the user asks where sessions are saved and locked; answering takes reading
 * eight real source files of this repository (src/core/session/*.ts, ~30k tokens). Then five
 * follow-up turns of small questions, each after an idle gap (2 minutes: the prompt cache is
 * still warm; 10 minutes: it expired, so each follow-up writes the whole prompt again).
 * - in the parent: the main model reads the eight files itself, one per round, then answers;
 *   the files stay in its context for every later request.
 * - with subagents: the main model asks two subagents in one round (four files each, one per
 *   round), each reports in ~250 words; only the reports enter the parent's context. Run once
 *   with the subagents on the default model (the summariser model) and once on the main model.
 * The answers are scripted and identical in every variant; only where the reading happens
 * differs. Prices: the model table (Anthropic's pricing page). Prints a table and a JSON line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentSession } from '../src/core/agent/agentSession';
import type { AgentEvent } from '../src/core/agent/events';
import type { ToolRunner } from '../src/core/tools/toolRunner';
import { addCosts } from '../src/core/llm/cost';
import { resolveConfig } from '../src/core/pipeline/config';
import { counterIds } from '../src/core/platform/platformPorts';
import { subagentToolRunner } from '../src/core/subagents/childTools';
import type { SubagentLauncher } from '../src/core/agent/subagentPort';
import { subagentSystem } from '../src/core/subagents/subagentPrompt';
import { subagentsCost, type SubagentRecord } from '../src/core/subagents/subagentRecord';
import { DEFAULT_SUBAGENT_SETTINGS, subagentConfig } from '../src/core/subagents/subagentSettings';
import { TASK_SPEC } from '../src/core/subagents/taskSpec';
import { READ_FILE_SPEC } from '../src/core/tools/builtin/readFileSpec';
import { TokenEstimator } from '../src/core/tokens/estimator';
import { agentSystemPrompt } from '../src/core/projectContext/staticPrompt';
import { AnthropicLlmClient } from '../src/host/anthropic/anthropicClient';
import { loadTokenizer } from '../src/host/tokenizerLoader';
import { startFakeAnthropic, type FakeAnthropic, type ScriptStep } from '../test/fake-anthropic/index';
import { nullSink } from '../test/unit/support/sessionSink';

const MAIN = 'claude-sonnet-4-6';
const FOLLOW_UPS = 5;
const FILES_DIR = join(__dirname, '..', 'src', 'core', 'session');
/** A report of ~250 words, the same whichever variant writes it. */
const REPORT = (part: string) =>
  `${part}: ${Array.from({ length: 25 }, (_, i) => `finding ${i + 1} names a function and its file with a line number,`).join(' ')} and that is all.`;

/** One variant's figures. */
interface Row {
  readonly variant: string;
  readonly gapMinutes: number;
  readonly parentRequests: number;
  /** Prompt tokens of every parent request, summed (input + cache reads + cache writes). */
  readonly parentPromptTokens: number;
  /** The parent's last prompt. */
  readonly parentLastPrompt: number;
  readonly parentCostUsd: number | undefined;
  readonly subagentRequests: number;
  readonly subagentCostUsd: number | undefined;
  readonly totalCostUsd: number | undefined;
}

/** Runs the bench; returns the exit code. */
export async function runSubagentsBench(): Promise<number> {
  const files = readdirSync(FILES_DIR)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .slice(0, 8)
    .map((f) => ({ path: `src/core/session/${f}`, text: readFileSync(join(FILES_DIR, f), 'utf8') }));
  const rows: Row[] = [];
  for (const gapMinutes of [2, 10])
    for (const variant of ['in the parent', 'subagents (default model)', 'subagents (main model)'] as const)
      rows.push(await runVariant(variant, gapMinutes, files));
  printTable(rows, files.length);
  console.log(JSON.stringify({ bench: 'subagents', files: files.length, followUps: FOLLOW_UPS, rows }));
  return 0;
}

async function runVariant(
  variant: 'in the parent' | 'subagents (default model)' | 'subagents (main model)',
  gapMinutes: number,
  files: readonly { path: string; text: string }[],
): Promise<Row> {
  const fake = await startFakeAnthropic({ port: 0 });
  try {
    const llm = new AnthropicLlmClient({
      apiKey: async () => 'sk-ant-bench',
      baseUrl: fake.url,
      retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
      sleep: async () => undefined,
    });
    const tokenizer = (await loadTokenizer()).tokenizer;
    const resolved = resolveConfig({ model: MAIN });
    if (!resolved.ok) throw new Error(resolved.error);
    const config = resolved.config;
    const clock = { now: () => fake.now() };
    const reader: ToolRunner = {
      run: async (call) => {
        const path = (call.input as { path?: string }).path;
        const file = files.find((f) => f.path === path);
        return file ? { content: file.text, isError: false } : { content: `no file ${String(path)}`, isError: true };
      },
    };
    const settings = {
      ...DEFAULT_SUBAGENT_SETTINGS,
      ...(variant === 'subagents (main model)' ? { model: MAIN } : {}),
    };
    const records: SubagentRecord[] = [];
    const launcher: SubagentLauncher = {
      settings: () => settings,
      describe: (c) => c.name,
      open: async (task, onEvent) => {
        const child = subagentConfig(config, settings);
        if (!child.ok) return { ok: false, error: child.error };
        const ids = counterIds(`c${task.toolUseId.slice(-4)}`);
        const agent = new AgentSession(
          {
            system: subagentSystem([agentSystemPrompt({ clock, ids })], { clock, ids }),
            tools: [READ_FILE_SPEC.schema],
            messages: [],
            pending: [],
            config: child.config,
          },
          {
            llm,
            tools: subagentToolRunner(reader, () => new Set(['read_file'])),
            sink: nullSink(),
            clock,
            ids,
            tokenizer,
            estimator: new TokenEstimator(tokenizer),
            pasteDirectory: '/bench',
            writeFile: async () => undefined,
            maxToolRounds: settings.maxRounds,
          },
          onEvent,
        );
        return {
          ok: true,
          child: {
            sessionId: `child-${task.toolUseId}`,
            model: child.config.model,
            send: (p) => agent.send(p),
            stop: () => agent.stop(),
            messages: () => agent.state.messages,
            close: async () => undefined,
          },
        };
      },
    };
    const usages: Extract<AgentEvent, { type: 'usage' }>[] = [];
    const ids = counterIds('p');
    const parent = new AgentSession(
      {
        system: [agentSystemPrompt({ clock, ids })],
        tools: [READ_FILE_SPEC.schema, TASK_SPEC.schema],
        messages: [],
        pending: [],
        config,
      },
      {
        llm,
        tools: reader,
        sink: nullSink(),
        clock,
        ids,
        tokenizer,
        estimator: new TokenEstimator(tokenizer),
        pasteDirectory: '/bench',
        writeFile: async () => undefined,
        maxToolRounds: 100,
        ...(variant === 'in the parent' ? {} : { subagents: launcher }),
      },
      (e) => {
        if (e.type === 'usage') usages.push(e);
        if (e.type === 'subagent_finished') records.push(e.record);
      },
    );
    script(fake, variant === 'in the parent' ? 'parent' : 'subagents', files, settings.model || config.summarizerModel);
    await parent.send('Where are sessions saved and locked, and why could the lock leak?');
    for (let i = 1; i <= FOLLOW_UPS; i++) {
      fake.advanceClock(gapMinutes * 60_000);
      await parent.send(`Follow-up question ${i}: what about case ${i}?`);
    }
    if (fake.pendingSteps > 0) throw new Error(`${variant}: ${fake.pendingSteps} scripted steps were not used`);
    if (fake.invalidRequests.length > 0) throw new Error(`${variant}: the fake server refused a request`);
    const prompt = (u: (typeof usages)[number]) =>
      u.usage.input_tokens + u.usage.cache_read_input_tokens + u.usage.cache_creation_input_tokens;
    const parentCost = usages.reduce<number | undefined>((n, u) => addCosts(n, u.costUsd), 0);
    const subCost = subagentsCost(records);
    return {
      variant,
      gapMinutes,
      parentRequests: usages.length,
      parentPromptTokens: usages.reduce((n, u) => n + prompt(u), 0),
      parentLastPrompt: usages.at(-1) ? prompt(usages.at(-1) as (typeof usages)[number]) : 0,
      parentCostUsd: parentCost,
      subagentRequests: records.reduce((n, r) => n + r.requests, 0),
      subagentCostUsd: subCost,
      totalCostUsd: addCosts(parentCost, subCost),
    };
  } finally {
    await fake.close();
  }
}

/** The scripted model's answers for one variant (identical words in every variant). */
function script(
  fake: FakeAnthropic,
  how: 'parent' | 'subagents',
  files: readonly { path: string }[],
  subModel: string,
): void {
  const read = (path: string): ScriptStep => ({
    match: { model: MAIN },
    toolUses: [{ name: 'read_file', input: { path } }],
  });
  const answer: ScriptStep = { match: { model: MAIN }, text: `${REPORT('Answer')}` };
  if (how === 'parent') fake.script(...files.map((f) => read(f.path)), answer);
  else {
    const halves = [files.slice(0, 4), files.slice(4)];
    fake.script({
      match: { model: MAIN },
      toolUses: halves.map((h, i) => ({
        name: 'task',
        input: { description: `Read part ${i + 1}`, prompt: `PART-${i + 1}: read ${h.map((f) => f.path).join(', ')}` },
      })),
    });
    halves.forEach((h, i) =>
      fake.script(
        ...h.map((f) => ({
          match: { model: subModel, firstUserTextIncludes: `PART-${i + 1}` },
          toolUses: [{ name: 'read_file', input: { path: f.path } }],
        })),
        { match: { model: subModel, firstUserTextIncludes: `PART-${i + 1}` }, text: REPORT(`Part ${i + 1}`) },
      ),
    );
    fake.script(answer);
  }
  for (let i = 1; i <= FOLLOW_UPS; i++) fake.script({ match: { model: MAIN }, text: `Follow-up answer ${i}.` });
}

function printTable(rows: readonly Row[], files: number): void {
  const usd = (n: number | undefined) => (n === undefined ? '—' : `$${n.toFixed(4)}`);
  const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
  console.log(
    `subagents: ${files} files read to answer, then ${FOLLOW_UPS} follow-up turns after an idle gap; parent on ${MAIN}`,
  );
  console.log(
    'variant                       gap   parent req  parent prompt Σ  last prompt  parent cost  sub req  sub cost   total',
  );
  for (const r of rows)
    console.log(
      `${r.variant.padEnd(29)} ${`${r.gapMinutes}m`.padStart(4)} ${String(r.parentRequests).padStart(11)} ${k(r.parentPromptTokens).padStart(16)} ${k(r.parentLastPrompt).padStart(12)} ${usd(r.parentCostUsd).padStart(12)} ${String(r.subagentRequests).padStart(8)} ${usd(r.subagentCostUsd).padStart(9)} ${usd(r.totalCostUsd).padStart(8)}`,
    );
}
