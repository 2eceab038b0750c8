/**
 * The engines the user can choose (`contextPipeline.contextEngine`): the built-ins and the
 * ones other extensions register through the public API (api/context-pipeline.d.ts). One
 * registry per extension host; a registration is undone by disposing what `register`
 * returned, and whoever listens (the chat sessions) hears of every change. Pure.
 */
import type { ContextEngineFactory } from '../../../api/context-pipeline';
import { slidingWindowEngine } from './slidingWindow';

/** The default engine: the pipeline's own layers (nothing is called out). */
export const LAYERED = 'layered';
/** The API's server compaction behind the pipeline's layers (compactionStrategy `server-compact`). */
export const SERVER_COMPACT = 'server-compact';
/** The built-in sliding window (slidingWindow.ts). */
export const SLIDING_WINDOW = 'sliding-window';

/** The built-ins, in the order the setting lists them. */
export const BUILTIN_ENGINES: readonly string[] = [LAYERED, SERVER_COMPACT, SLIDING_WINDOW];

/** The built-ins that run the pipeline's own layers (no engine is called). */
export function isLayeredEngine(id: string): boolean {
  return id === LAYERED || id === SERVER_COMPACT;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Registered engines by id (see the module comment). */
export class EngineRegistry {
  private readonly factories = new Map<string, ContextEngineFactory>([[SLIDING_WINDOW, () => slidingWindowEngine()]]);
  private readonly listeners = new Set<(id: string) => void>();

  /** Registers `factory` under `id`; throws when the id is malformed or taken. Dispose the result to unregister. */
  register(id: string, factory: ContextEngineFactory): { dispose(): void } {
    if (typeof id !== 'string' || !ID.test(id))
      throw new Error(`"${String(id)}" is not a context engine id (letters, digits, ".", "_", "-"; at most 64).`);
    if (typeof factory !== 'function') throw new Error(`The context engine "${id}" needs a factory function.`);
    if (BUILTIN_ENGINES.includes(id) || this.factories.has(id))
      throw new Error(`A context engine "${id}" is already registered.`);
    this.factories.set(id, factory);
    this.changed(id);
    let done = false;
    return {
      dispose: () => {
        if (done) return;
        done = true;
        if (this.factories.get(id) === factory) this.factories.delete(id);
        this.changed(id);
      },
    };
  }

  /** The factory of `id`; undefined for the layered built-ins and for an id nobody registered. */
  factory(id: string): ContextEngineFactory | undefined {
    return this.factories.get(id);
  }

  /** Whether `id` can be used now. */
  has(id: string): boolean {
    return isLayeredEngine(id) || this.factories.has(id);
  }

  /** The ids usable now, built-ins first. */
  ids(): string[] {
    return [...BUILTIN_ENGINES, ...[...this.factories.keys()].filter((k) => !BUILTIN_ENGINES.includes(k))];
  }

  /** Calls `listener` with the id whenever an engine is registered or unregistered; returns the unsubscribe. */
  onDidChange(listener: (id: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(id: string): void {
    for (const l of this.listeners) l(id);
  }
}
