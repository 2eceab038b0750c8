/**
 * The context engine slot of one session: which engine serves it (the setting, read per
 * request), that engine's instance (made by its factory on first use, `bootstrap`ped once,
 * disposed when another is chosen, it is unregistered, or the session ends), and the call of
 * its `assemble` / `compact` / `afterTurn` under a time limit, checked at the border
 * (engineMessages.ts) and against its token budget. Whatever goes wrong — the id is not
 * registered, the factory or a hook throws, the time runs out, the data is not messages, the
 * messages exceed the budget — is an error value: the request falls back to the built-in
 * `layered` engine, the outcome says why (the request ledger shows it), and the first failure
 * of each engine instance carries a notice for the chat. Pure given its ports.
 */
import type { ContextEngine, EngineContext, EngineUsage, SubagentSpawn } from '../../../api/context-pipeline';
import type { ConversationState, Message } from '../conversation/conversationModel';
import { effectiveWindow } from '../pipeline/window';
import { fromEngineMessages, toEngineView, type EngineView } from './engineMessages';
import { EngineRegistry, isLayeredEngine, LAYERED } from './engineRegistry';

/** How long an engine's hook may take before the request goes on without it, unless the user set another limit. */
export const ENGINE_TIMEOUT_MS = 10_000;

/** Which engine served a request, by id and name, and why the layered one did instead when it did. */
export interface EngineUse {
  readonly id: string;
  readonly name: string;
  /** Set when the chosen engine was not used for this request: why. */
  readonly fallback?: string;
}

/** What `assemble` decided for one request. */
export type EngineStep =
  /** Run the pipeline's own layers on the session's state (the layered engine, or a fallback to it). */
  | { readonly kind: 'layered'; readonly use: EngineUse; readonly notice?: string }
  /** Send these messages (the session's state is unchanged). */
  | { readonly kind: 'engine'; readonly state: ConversationState; readonly use: EngineUse };

/** The ports of a slot. */
export interface EngineSlotDeps {
  readonly registry: EngineRegistry;
  /** The chosen engine's id (the setting), read on each request. */
  readonly engineId: () => string;
  readonly sessionId: string;
  /** Tokens of each message, as the pipeline estimates them. */
  readonly messageTokens: (messages: readonly Message[]) => number[];
  /** Tokens of a whole request for `state` (system, tools and messages). */
  readonly measure: (state: ConversationState) => number;
  readonly now: () => number;
  /** Resolves after `ms` (or never, once `signal` aborts); the time limit on each hook. */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The time limit on each hook, read per call (the user's setting); absent: {@link ENGINE_TIMEOUT_MS}. */
  readonly timeoutMs?: () => number;
}

interface Live {
  readonly id: string;
  readonly engine: ContextEngine;
  bootstrapped: boolean;
  noticed: boolean;
}

/** One session's engine slot (see the module comment). */
export class EngineSlot {
  private live: Live | undefined;
  private readonly unsubscribe: () => void;
  private unknownNoticed = new Set<string>();
  private lastUsage: EngineUsage | undefined;
  private readonly spawns = new Map<string, SubagentSpawn>();

  constructor(private readonly deps: EngineSlotDeps) {
    // An engine unregistered while in use is let go; the next request falls back.
    this.unsubscribe = deps.registry.onDidChange((id) => {
      if (this.live?.id === id && !deps.registry.factory(id)) this.release();
    });
  }

  /** Whether the pipeline's own compaction should stay off for the next request (the engine owns it). */
  ownsCompaction(): boolean {
    const id = this.deps.engineId();
    if (isLayeredEngine(id) || !this.deps.registry.has(id)) return false;
    const live = this.instance(id);
    return live.ok && live.value.engine.info?.ownsCompaction === true;
  }

  /** The messages to send for `state` (see {@link EngineStep}). */
  async assemble(
    state: ConversationState,
    opts: { readonly signal: AbortSignal; readonly quiet?: boolean },
  ): Promise<EngineStep> {
    const id = this.deps.engineId();
    const step = await this.step(state, id, opts.signal);
    // A preview (quiet) neither says the notice nor uses up the one a real request will say.
    if (opts.quiet && step.kind === 'layered' && step.notice) {
      this.unsay(id);
      return { kind: 'layered', use: step.use };
    }
    return step;
  }

  private async step(state: ConversationState, id: string, signal: AbortSignal): Promise<EngineStep> {
    if (isLayeredEngine(id)) return { kind: 'layered', use: { id, name: builtinName(id) } };
    const got = this.instance(id);
    if (!got.ok) return this.fallback(id, id, got.reason);
    const live = got.value;
    const name = nameOf(live.engine, id);
    const { context, view } = this.context(state, this.lastUsage);
    if (!live.bootstrapped && live.engine.bootstrap) {
      const b = await this.call(() => live.engine.bootstrap?.(context), signal);
      if (!b.ok) return this.fallback(id, name, `its bootstrap ${b.reason}`, live);
    }
    live.bootstrapped = true;
    const r = await this.call(() => live.engine.assemble(context), signal);
    if (!r.ok) return this.fallback(id, name, `its assemble ${r.reason}`, live);
    const result = r.value as { messages?: unknown } | null | undefined;
    const messages = fromEngineMessages(result?.messages, view, this.deps.now());
    if (!messages.ok) return this.fallback(id, name, messages.reason, live);
    if (messages.messages.length === 0) return this.fallback(id, name, 'it returned no messages', live);
    const next: ConversationState = { ...state, messages: messages.messages };
    const tokens = this.deps.measure(next);
    const limit = requestLimit(state);
    if (tokens > limit)
      return this.fallback(
        id,
        name,
        `its messages make a ${fmt(tokens)}-token request, over the ${fmt(limit)} the window allows below the hard threshold`,
        live,
      );
    return { kind: 'engine', state: next, use: { id, name } };
  }

  /** Whether the chosen engine compacts on demand (has `compact`): Compact Now asks it first. */
  hasCompact(): boolean {
    const id = this.deps.engineId();
    if (isLayeredEngine(id) || !this.deps.registry.has(id)) return false;
    const live = this.instance(id);
    return live.ok && typeof live.value.engine.compact === 'function';
  }

  /**
   * The chosen engine's `compact` for `state`: its answer (checked by engineCompaction.ts),
   * `none` when it has nothing to compact, or `layered` with why when it failed (the pipeline's
   * own compaction then runs; the first failure carries a notice).
   */
  async compact(
    state: ConversationState,
    signal: AbortSignal,
  ): Promise<
    | { readonly kind: 'engine'; readonly result: unknown; readonly use: EngineUse }
    | { readonly kind: 'none'; readonly use: EngineUse }
    | Extract<EngineStep, { kind: 'layered' }>
  > {
    const id = this.deps.engineId();
    const got = this.instance(id);
    if (!got.ok) return this.fallback(id, id, got.reason) as Extract<EngineStep, { kind: 'layered' }>;
    const live = got.value;
    const name = nameOf(live.engine, id);
    const { context } = this.context(state, this.lastUsage);
    const r = await this.call(() => live.engine.compact?.(context), signal);
    if (!r.ok)
      return this.fallback(id, name, `its compact ${r.reason}`, live) as Extract<EngineStep, { kind: 'layered' }>;
    return r.value === undefined || r.value === null
      ? { kind: 'none', use: { id, name } }
      : { kind: 'engine', result: r.value, use: { id, name } };
  }

  /** Says a compaction the engine returned could not be used (the layered one runs instead). */
  compactRefused(use: EngineUse, reason: string): Extract<EngineStep, { kind: 'layered' }> {
    const live = this.live?.id === use.id ? this.live : undefined;
    return this.fallback(use.id, use.name, `its compaction cannot be used: ${reason}`, live) as Extract<
      EngineStep,
      { kind: 'layered' }
    >;
  }

  /** The usage of the answered request (the engine's next `lastUsage`). */
  observe(usage: EngineUsage): void {
    this.lastUsage = {
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens,
    };
  }

  /** Tells the engine a subagent is starting (`prepareSubagentSpawn`); advisory: a failure is returned in words, nothing stops. */
  async subagentSpawning(
    task: { readonly toolUseId: string; readonly description: string; readonly prompt: string },
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const live = this.current();
    if (!live?.engine.prepareSubagentSpawn) return undefined;
    const spawn = { parentSessionId: this.deps.sessionId, ...task };
    this.spawns.set(task.toolUseId, spawn);
    const r = await this.call(() => live.engine.prepareSubagentSpawn?.(spawn), signal);
    return r.ok
      ? undefined
      : `The context engine "${nameOf(live.engine, live.id)}": its prepareSubagentSpawn ${r.reason}.`;
  }

  /** Tells the engine a subagent ended (`onSubagentEnded`); advisory, as {@link subagentSpawning}. */
  async subagentEnded(
    ended: { readonly toolUseId: string; readonly sessionId: string; readonly state: 'done' | 'failed' | 'stopped' },
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const spawn = this.spawns.get(ended.toolUseId);
    this.spawns.delete(ended.toolUseId);
    const live = this.current();
    if (!live?.engine.onSubagentEnded || !spawn) return undefined;
    const r = await this.call(
      () => live.engine.onSubagentEnded?.({ ...spawn, subagentSessionId: ended.sessionId, state: ended.state }),
      signal,
    );
    return r.ok ? undefined : `The context engine "${nameOf(live.engine, live.id)}": its onSubagentEnded ${r.reason}.`;
  }

  /** The live instance of the engine chosen now, if one was made. */
  private current(): Live | undefined {
    const id = this.deps.engineId();
    return this.live?.id === id ? this.live : undefined;
  }

  /** The engine's `afterTurn`, when it has one; its failures are ignored (the turn is over), but said. */
  async afterTurn(state: ConversationState, signal: AbortSignal): Promise<string | undefined> {
    const id = this.deps.engineId();
    const live = this.live?.id === id ? this.live : undefined;
    if (!live?.engine.afterTurn) return undefined;
    const { context } = this.context(state, this.lastUsage);
    const r = await this.call(() => live.engine.afterTurn?.(context), signal);
    return r.ok ? undefined : `The context engine "${nameOf(live.engine, id)}": its afterTurn ${r.reason}.`;
  }

  /** Lets the engine go (the session ends). */
  dispose(): void {
    this.unsubscribe();
    this.release();
  }

  /** The engine's plain view of `state`, and the way back from its messages. */
  context(state: ConversationState, lastUsage: EngineUsage | undefined): { context: EngineContext; view: EngineView } {
    const view = toEngineView(state.messages);
    const messageTokens = this.deps.messageTokens(state.messages);
    const fixed = Math.max(0, this.deps.measure({ ...state, messages: [] }));
    const context: EngineContext = {
      sessionId: this.deps.sessionId,
      model: state.config.model,
      messages: view.messages,
      messageTokens,
      system: state.system.map((b) => b.text),
      tools: state.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
      tokenBudget: Math.max(0, requestLimit(state) - fixed),
      ...(lastUsage ? { lastUsage } : {}),
    };
    return { context, view };
  }

  private instance(id: string): { ok: true; value: Live } | { ok: false; reason: string } {
    if (this.live?.id === id) return { ok: true, value: this.live };
    this.release();
    const factory = this.deps.registry.factory(id);
    if (!factory) return { ok: false, reason: 'no extension has registered it (is it installed and enabled?)' };
    try {
      const engine = factory({ sessionId: this.deps.sessionId });
      if (!engine || typeof engine.assemble !== 'function')
        return { ok: false, reason: 'its factory did not return an engine with an assemble function' };
      this.live = { id, engine, bootstrapped: false, noticed: false };
      return { ok: true, value: this.live };
    } catch (err) {
      return { ok: false, reason: `its factory threw: ${messageOf(err)}` };
    }
  }

  private fallback(id: string, name: string, reason: string, live?: Live): EngineStep {
    const fallback = `${reason}; the layered engine served this request`;
    const first = live ? !live.noticed : !this.unknownNoticed.has(id);
    if (live) live.noticed = true;
    else this.unknownNoticed.add(id);
    return {
      kind: 'layered',
      use: { id, name, fallback },
      ...(first
        ? {
            notice: `The context engine "${name}" could not be used: ${reason}. The built-in layered engine serves the requests it cannot (the request ledger says why each time).`,
          }
        : {}),
    };
  }

  /** Runs a hook under the time limit; its throw, rejection or lateness as a reason. */
  private async call<T>(
    hook: () => T | Promise<T>,
    signal: AbortSignal,
  ): Promise<{ ok: true; value: T } | { ok: false; reason: string }> {
    const ms = this.deps.timeoutMs?.() ?? ENGINE_TIMEOUT_MS;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      // A sleep cut short (the hook finished, or the turn was stopped) never settles the race.
      const late = this.deps.sleep(ms, stop.signal).then(
        () => LATE,
        () => new Promise<never>(() => undefined),
      );
      const value = await Promise.race([Promise.resolve().then(hook), late]);
      if (value === LATE) return { ok: false, reason: `took longer than ${ms / 1000} s` };
      return { ok: true, value: value as T };
    } catch (err) {
      return { ok: false, reason: `threw: ${messageOf(err)}` };
    } finally {
      stop.abort();
      signal.removeEventListener('abort', onAbort);
    }
  }

  private unsay(id: string): void {
    if (this.live?.id === id) this.live.noticed = false;
    else this.unknownNoticed.delete(id);
  }

  private release(): void {
    const live = this.live;
    this.live = undefined;
    try {
      live?.engine.dispose?.();
    } catch {
      // An engine's dispose failing changes nothing for the session.
    }
  }
}

const LATE: unique symbol = Symbol('late');

/** The most tokens a request may have: the usable window below the hard threshold. */
function requestLimit(state: ConversationState): number {
  return Math.floor(state.config.hardThreshold * effectiveWindow(state.config));
}

function builtinName(id: string): string {
  return id === LAYERED ? 'Layered (built-in)' : 'Server compaction (built-in)';
}

function nameOf(engine: ContextEngine, id: string): string {
  const n = engine.info?.name;
  return typeof n === 'string' && n.trim() ? n.trim().slice(0, 80) : id;
}

function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 300);
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
