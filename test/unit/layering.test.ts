import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every module specifier a file imports, exports from, or requires. */
export function specifiers(source: string): string[] {
  const out: string[] = [];
  const re =
    /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*['"]([^'"]+)['"]|(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of source.matchAll(re)) out.push((m[1] ?? m[2] ?? m[3]) as string);
  return out;
}

const NODE_IO =
  /^(node:)?(fs|fs\/promises|net|http|https|http2|child_process|worker_threads|dgram|dns|tls|cluster|os|readline)$/;

describe('layering', () => {
  it('finds imports of every syntax (the checker can fail)', () => {
    assert.deepEqual(
      specifiers(
        `import * as vscode from 'vscode';\nimport type { X } from "../host/x";\nexport { y } from './y';\nconst z = require('fs');\nimport 'side';\nawait import('dyn');`,
      ),
      ['vscode', '../host/x', './y', 'fs', 'side', 'dyn'],
    );
  });

  it('src/core imports neither vscode, nor src/host, nor Node I/O', () => {
    const coreFiles = files(join(root, 'src', 'core'));
    assert.ok(coreFiles.length > 5, 'core files were found');
    for (const f of coreFiles) {
      for (const s of specifiers(readFileSync(f, 'utf8'))) {
        const where = relative(root, f);
        assert.notEqual(s, 'vscode', `${where} imports vscode`);
        assert.ok(!/(^|\/)host(\/|$)/.test(s), `${where} imports from src/host (${s})`);
        assert.ok(!/(^|\/)webview(\/|$)/.test(s), `${where} imports from src/webview (${s})`);
        assert.ok(!NODE_IO.test(s), `${where} imports Node I/O module ${s}`);
      }
    }
  });

  it('src/protocol imports only itself and the validation library', () => {
    for (const f of files(join(root, 'src', 'protocol'))) {
      for (const s of specifiers(readFileSync(f, 'utf8')))
        assert.ok(s === 'valibot' || s.startsWith('./'), `${relative(root, f)} imports ${s}`);
    }
  });

  it('src/webview imports only src/protocol, src/webview/shared and its own modules', () => {
    for (const f of files(join(root, 'src', 'webview'))) {
      for (const s of specifiers(readFileSync(f, 'utf8'))) {
        assert.ok(
          s.startsWith('./') ||
            /^(\.\.\/)+protocol\//.test(s) ||
            s.startsWith('../shared/') ||
            (/^[a-z@][^/]*/.test(s) && !s.startsWith('vscode')),
          `${relative(root, f)} imports ${s}`,
        );
        assert.ok(!/core|host/.test(s), `${relative(root, f)} imports ${s}`);
      }
    }
  });
});
