// ESLint (flat config): typescript-eslint's recommended rules, the layer boundaries of
// docs/ARCHITECTURE.md as import rules, no unused code, and a line-length limit. Formatting
// itself is Prettier's job (`.prettierrc.json`); `npm run lint` runs both.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { voidPromiseReason } from './scripts/eslint/voidPromiseReason.mjs';

const NODE_IO = [
  'fs',
  'fs/promises',
  'net',
  'http',
  'https',
  'http2',
  'child_process',
  'worker_threads',
  'dgram',
  'dns',
  'tls',
  'cluster',
  'os',
  'readline',
];
const nodeIo = NODE_IO.flatMap((m) => [m, `node:${m}`]);

/** The import rule of one layer: what it may never import, with the reason shown. */
function boundary(files, paths, patterns, message) {
  return {
    files,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: paths.map((name) => ({ name, message })),
          patterns: patterns.map((group) => ({ group: [group], message })),
        },
      ],
    },
  };
}

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', 'out/', '.cache/', 'test-results/', 'test/vscode/node_modules/', 'media/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      // Sanitisers match control characters on purpose (lone surrogates, C0 controls).
      'no-control-regex': 'off',
      'max-len': [
        'error',
        { code: 140, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true },
      ],
    },
  },
  // Type-aware promise rules on the shipped code: a promise nobody awaits or catches is an
  // unhandled rejection in the extension host (or the webview). Each intended fire-and-forget
  // stays a `void` with a comment saying who handles its rejection.
  {
    files: ['src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { local: { rules: { 'void-promise-reason': voidPromiseReason } } },
    rules: {
      'local/void-promise-reason': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  { files: ['src/webview/**'], languageOptions: { globals: { ...globals.browser } } },
  { files: ['test/vscode/**'], languageOptions: { globals: { ...globals.browser, ...globals.node } } },
  boundary(
    ['src/core/**'],
    ['vscode', ...nodeIo],
    ['**/host/**', '**/webview/**', '**/app/**'],
    'src/core is pure: no vscode, no src/host, src/app or src/webview, no Node I/O (see docs/ARCHITECTURE.md).',
  ),
  boundary(
    ['src/app/**'],
    ['vscode', ...nodeIo],
    ['**/host/**', '**/webview/**'],
    'src/app is VS Code-free: it reaches VS Code and the disk only through its ports (see docs/ARCHITECTURE.md).',
  ),
  boundary(
    ['src/webview/**'],
    ['vscode', ...nodeIo],
    ['**/core/**', '**/host/**', '**/app/**'],
    'src/webview imports only src/protocol, src/webview and browser libraries (see docs/ARCHITECTURE.md).',
  ),
  {
    files: ['src/protocol/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!valibot$|\\./).*',
              message: 'src/protocol imports only itself and valibot (see docs/ARCHITECTURE.md).',
            },
          ],
        },
      ],
    },
  },
);
