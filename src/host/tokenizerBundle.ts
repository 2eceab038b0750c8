/**
 * Entry of the separate bundle dist/tokenizer.js (see esbuild.mjs): js-tiktoken and its
 * cl100k_base ranks (~1 MB), kept out of dist/extension.js so activation never pays for
 * them. Loaded on first use by tokenizerLoader.ts.
 */
export { createTiktokenTokenizer } from '../core/tokens/tiktoken';
