/**
 * Loads the tiktoken tokenizer for the extension host, lazily: dist/tokenizer.js (a separate
 * bundle, external to dist/extension.js) is `require`d on the first call, never at activation,
 * and the result is memoised. If it cannot be loaded or does not work, the host falls back to
 * chars/4 and gets the reason back to log and show — a failure is never swallowed.
 * Free of 'vscode'.
 */
import { join } from 'node:path';
import type { Tokenizer } from '../core/platform/platformPorts';
import { chars4Tokenizer } from '../core/tokens/chars4';
import type * as TokenizerBundle from './tokenizerBundle';

/** The tokenizer to use, and why it is chars/4 when loading tiktoken failed. */
export interface LoadedTokenizer {
  readonly tokenizer: Tokenizer;
  /** Set when the fallback chars/4 is returned: what went wrong loading tiktoken. */
  readonly fallbackReason?: string;
}

function isBundle(mod: unknown): mod is typeof TokenizerBundle {
  return (
    typeof mod === 'object' &&
    mod !== null &&
    typeof (mod as { createTiktokenTokenizer?: unknown }).createTiktokenTokenizer === 'function'
  );
}

/**
 * Makes a memoised loader over `load` (which returns the module of dist/tokenizer.js). The
 * returned function resolves to the tiktoken tokenizer, or to chars/4 with `fallbackReason`
 * when `load` throws, returns something else, or the tokenizer fails a smoke count. Never
 * rejects. The load runs after the current macrotask, so a caller's UI work goes first.
 */
export function createTokenizerLoader(load: () => unknown): () => Promise<LoadedTokenizer> {
  let loading: Promise<LoadedTokenizer> | undefined;
  return () =>
    (loading ??= new Promise<void>((resolve) => setImmediate(resolve)).then((): LoadedTokenizer => {
      try {
        const mod = load();
        if (!isBundle(mod))
          return {
            tokenizer: chars4Tokenizer,
            fallbackReason: 'the tokenizer bundle does not export createTiktokenTokenizer',
          };
        const tokenizer = mod.createTiktokenTokenizer();
        const n = tokenizer.count('hello world');
        if (!(n > 0))
          return { tokenizer: chars4Tokenizer, fallbackReason: `the tokenizer counted ${n} tokens in "hello world"` };
        return { tokenizer };
      } catch (err) {
        return { tokenizer: chars4Tokenizer, fallbackReason: err instanceof Error ? err.message : String(err) };
      }
    }));
}

/**
 * The host's tokenizer: tiktoken from dist/tokenizer.js next to the built dist/extension.js
 * (esbuild emits CommonJS, so `__dirname` is dist/), loaded on first call and memoised;
 * chars/4 with a `fallbackReason` if that fails.
 */
export const loadTokenizer: () => Promise<LoadedTokenizer> = createTokenizerLoader(
  // A runtime require of the sibling bundle: esbuild must not inline it (it is loaded lazily).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  () => require(join(__dirname, 'tokenizer.js')) as unknown,
);
