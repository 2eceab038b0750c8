import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const MAP = 'docs/ARCHITECTURE.md';

/** Every folder under `dir` (any depth), repo-relative with `/`: `src/core`, `src/core/tools/builtin` … */
function foldersUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => {
      const rel = `${dir}/${e.name}`;
      return [rel, ...foldersUnder(rel)];
    })
    .sort();
}

/**
 * The `src/…` paths a text names, as written, without a trailing `/` (or sentence
 * punctuation): `src/core/agent/` names `src/core/agent`, and `src/core/agent/events.ts` names
 * that file only — naming a file does not name its folder.
 */
function namedPaths(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?<![\w./-])src\/[\w./-]*/g)) out.add(m[0].replace(/[./-]+$/, ''));
  return out;
}

/**
 * docs/ARCHITECTURE.md is the code's map: it names every folder under src/ (so a new folder
 * cannot go unmapped), and every `src/…` path it names exists (so a moved or deleted one cannot
 * linger). Folders, not files: what each file is for is the map's job, checked by review.
 */
describe('the architecture map (docs/ARCHITECTURE.md)', () => {
  const map = readFileSync(join(root, MAP), 'utf8');
  const named = namedPaths(map);

  it('reads names as paths: a folder is named by its own path, not by a file or folder inside it', () => {
    const names = namedPaths('See `src/core/agent/`, `src/host/tools/readFresh.ts` and src/app.');
    assert.deepEqual([...names].sort(), ['src/app', 'src/core/agent', 'src/host/tools/readFresh.ts']);
    assert.ok(!names.has('src/host/tools'));
    assert.ok(!names.has('src/core'));
  });

  it('names every folder under src/, at any depth', () => {
    const folders = foldersUnder('src');
    assert.ok(folders.includes('src/core/tools/builtin'), 'the walk reaches nested folders');
    const missing = folders.filter((f) => !named.has(f));
    assert.deepEqual(
      missing,
      [],
      `${MAP} does not name these folders: add each to its layer's table (\`${missing[0] ?? ''}/\` and what its files are for)`,
    );
  });

  it('names only src/ paths that exist', () => {
    const stale = [...named].filter((p) => !existsSync(join(root, p))).sort();
    assert.deepEqual(stale, [], `${MAP} names paths that do not exist: update or remove them`);
  });
});
