/**
 * A session's tool loading: the tools offered (built-ins, MCP servers') become the tools a
 * request sends through the plan (toolLoading.ts) — MCP definitions over the threshold deferred
 * behind the API's tool search, or left out behind `find_tools` where the model lacks it. The
 * loader remembers what `find_tools` loaded this session, and gives the same array and schema
 * objects while nothing changed, so the prompt cache and the token memo hold. Pure.
 */
import type { ToolSchema } from '../conversation/conversationModel';
import type { Tokenizer } from '../platform/platformPorts';
import { findToolsDefinition } from './findTools';
import type { AnyToolDefinition } from './toolDefinition';
import { planToolLoading, type ToolLoadingPlan } from './toolLoading';

/** What the loader reads for each plan (functions: settings and the model may change between turns). */
export interface ToolLoaderDeps {
  readonly tokenizer: Tokenizer;
  /** Tokens of MCP definitions above which they are deferred (`contextPipeline.toolSearch.deferThreshold`). */
  readonly thresholdTokens: () => number;
  /** Whether the current model (and endpoint) takes the API's tool search. */
  readonly serverToolSearch: () => boolean;
}

/** See the file comment. */
export class ToolLoader {
  private readonly loaded = new Set<string>();
  private last?: {
    readonly offered: readonly ToolSchema[];
    readonly threshold: number;
    readonly server: boolean;
    readonly loadedKey: string;
    readonly plan: ToolLoadingPlan;
    readonly tools: readonly ToolSchema[];
  };
  /** Deferred and loaded copies of each offered schema, so a plan made again reuses them. */
  private readonly copies = new WeakMap<ToolSchema, ToolSchema>();
  /** find_tools, bound to this loader (its schema is offered when the plan asks for it). */
  readonly findTools: AnyToolDefinition;

  constructor(private readonly deps: ToolLoaderDeps) {
    this.findTools = findToolsDefinition({
      deferred: () => this.last?.plan.deferred ?? [],
      load: (names) => {
        for (const n of names) this.loaded.add(n);
      },
    });
  }

  /** The plan for `offered` now: the same object while the offer, the settings and the loaded set are unchanged. */
  plan(offered: readonly ToolSchema[]): ToolLoadingPlan {
    return this.compute(offered).plan;
  }

  /**
   * The tools a request sends for `offered`: the plan's, with `find_tools` last when the
   * deferred tools are found client-side. The same array while nothing changed.
   */
  tools(offered: readonly ToolSchema[]): readonly ToolSchema[] {
    return this.compute(offered).tools;
  }

  /** Names `find_tools` loaded this session (they are sent eagerly from the request after). */
  loadedNames(): readonly string[] {
    return [...this.loaded];
  }

  private compute(offered: readonly ToolSchema[]): NonNullable<ToolLoader['last']> {
    const threshold = this.deps.thresholdTokens();
    const server = this.deps.serverToolSearch();
    const loadedKey = [...this.loaded].sort().join('\n');
    const last = this.last;
    if (
      last &&
      last.offered === offered &&
      last.threshold === threshold &&
      last.server === server &&
      last.loadedKey === loadedKey
    )
      return last;
    const plan = planToolLoading({
      offered,
      thresholdTokens: threshold,
      serverToolSearch: server,
      loaded: this.loaded,
      tokenizer: this.deps.tokenizer,
    });
    const planned = plan.tools.map((t) => this.stable(t, offered));
    const tools = plan.search === 'client' ? [...planned, this.findTools.schema] : planned;
    const same = last && last.tools.length === tools.length && last.tools.every((t, i) => t === tools[i]);
    this.last = { offered, threshold, server, loadedKey, plan, tools: same ? last.tools : tools };
    return this.last;
  }

  /** The offered schema itself when the plan left it as it was, else one kept copy of the plan's version. */
  private stable(t: ToolSchema, offered: readonly ToolSchema[]): ToolSchema {
    const original = offered.find((o) => o.name === t.name);
    if (!original || original === t) return t;
    if (original.deferLoading === t.deferLoading) return original;
    const kept = this.copies.get(original);
    if (kept && kept.deferLoading === t.deferLoading) return kept;
    this.copies.set(original, t);
    return t;
  }
}
