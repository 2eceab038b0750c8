// Bundles the extension host (CommonJS, `vscode` external), the lazily loaded tokenizer,
// and one browser bundle per webview. Flags: --watch, --production (minified, no maps).
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {esbuild.BuildOptions} */
const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'info',
  legalComments: 'none',
};

/** @type {esbuild.BuildOptions[]} */
const builds = [
  {
    ...common,
    entryPoints: { extension: 'src/host/extension.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // The tokenizer (js-tiktoken and its ranks, ~2 MB) is its own bundle, required on first use.
    external: ['vscode', './tokenizer.js'],
    // jsonc-parser's `main` is a UMD build whose require('./impl/format') esbuild cannot follow
    // (the bundle fails to load); its ES module build bundles cleanly.
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  },
  {
    ...common,
    entryPoints: { tokenizer: 'src/host/tokenizerBundle.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    ...common,
    // CSS imported by a webview (uPlot's, in the budget panel) lands beside its bundle: dist/webview/budget.css.
    entryPoints: { 'webview/chat': 'src/webview/chat/main.ts', 'webview/budget': 'src/webview/budget/main.ts' },
    outdir: 'dist',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
];

// A production build starts from an empty dist/, so no stale map or bundle is packaged.
if (production) rmSync('dist', { recursive: true, force: true });

// VS Code's icon font for the webviews (codicon.css loads codicon.ttf from beside itself).
mkdirSync('dist/webview', { recursive: true });
for (const file of ['codicon.css', 'codicon.ttf'])
  copyFileSync(`node_modules/@vscode/codicons/dist/${file}`, `dist/webview/${file}`);

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('[esbuild] watching for changes…');
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
