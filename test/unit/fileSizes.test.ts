import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/** Most lines a source or test file may have: past it, split the file by job. */
const MAX_LINES = 400;

/** Folders whose code files are held to MAX_LINES (recursively), and whether to descend. */
const TREES: ReadonlyArray<{ dir: string; recursive: boolean }> = [
  { dir: 'src', recursive: true },
  { dir: 'test/unit', recursive: true },
  { dir: 'test/fake-anthropic', recursive: true },
  { dir: 'bench', recursive: true },
  { dir: 'test/vscode', recursive: false },
];

/** File endings counted as code (documentation such as README.md is not held to the limit). */
const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs|css|html)$/;

/** Repo-relative paths of the code files under `dir` (node_modules skipped). */
function codeFiles(dir: string, recursive: boolean): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) {
      if (recursive && e.name !== 'node_modules') out.push(...codeFiles(rel, recursive));
    } else if (e.isFile() && CODE.test(e.name)) out.push(rel);
  }
  return out;
}

/** Lines as `wc -l` counts them (newline characters). */
function lineCount(path: string): number {
  return readFileSync(join(root, path), 'utf8').split('\n').length - 1;
}

describe('file sizes: no source or test file over 400 lines', () => {
  const files = TREES.flatMap((t) => codeFiles(t.dir, t.recursive));
  const sizes = new Map(files.map((f) => [f, lineCount(f)]));

  it('finds the files it checks (the walk is not empty)', () => {
    for (const t of TREES)
      assert.ok(
        files.some((f) => f.startsWith(`${t.dir}/`)),
        `no code files found in ${t.dir}`,
      );
  });

  it(`every file under ${TREES.map((t) => t.dir).join(', ')} has at most ${MAX_LINES} lines`, () => {
    const over = [...sizes].filter(([, n]) => n > MAX_LINES).map(([f, n]) => `${f} (${n} lines)`);
    assert.deepEqual(over, [], `split these files by job: ${over.join(', ')}`);
  });
});
