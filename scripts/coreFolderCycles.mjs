// The folder graph of src/core: folder A → folder B when a file under src/core/A imports one
// under src/core/B (value or type import, re-export, dynamic import). `npm run lint` runs this
// file and fails when the graph has a cycle, naming the folders and one import per step, so a
// type that sits in the wrong folder is moved down instead of tying two folders together.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every .ts file under `dir`, recursively, as absolute paths in a stable order. */
function tsFiles(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return tsFiles(path);
      return name.endsWith('.ts') ? [path] : [];
    });
}

/** The first path segment of `path` relative to `coreDir` (a file directly in it is its own node). */
function folderOf(coreDir, path) {
  return relative(coreDir, path).split(sep)[0] ?? '';
}

/**
 * The folder graph of the files under `coreDir`: `edges[a]` lists the folders that folder `a`
 * imports (sorted, never `a` itself; every folder is a key), and `evidence['a->b']` names one
 * import that makes the edge (`agent/x.ts imports '../llm/y'`). Only relative imports count;
 * a package import is no folder of `coreDir`.
 */
export function folderGraph(coreDir) {
  const dir = resolve(coreDir);
  /** @type {Record<string, Set<string>>} */
  const sets = {};
  /** @type {Record<string, string>} */
  const evidence = {};
  for (const file of tsFiles(dir)) {
    const from = folderOf(dir, file);
    sets[from] ??= new Set();
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName: spec } of importedFiles) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(dir + sep)) continue;
      const to = folderOf(dir, target);
      if (to === from) continue;
      sets[from].add(to);
      evidence[`${from}->${to}`] ??= `${relative(dir, file).split(sep).join('/')} imports '${spec}'`;
    }
  }
  /** @type {Record<string, string[]>} */
  const edges = {};
  for (const name of Object.keys(sets).sort()) edges[name] = [...sets[name]].sort();
  return { edges, evidence };
}

/**
 * The cycles of a folder graph (`edges[a]` = the folders `a` imports): one per group of folders
 * that all reach each other (a strongly connected component of more than one folder), as
 * `{ folders, path }` — the group's folders by name, and one shortest closed path through it
 * from its first folder (`['a', 'b']` for a → b → a; the start is not repeated). Groups come in
 * name order; an acyclic graph gives `[]`. Self-edges are ignored.
 */
export function findCycles(edges) {
  const targets = (a) => (edges[a] ?? []).filter((b) => b !== a);
  const nodes = [...new Set([...Object.keys(edges), ...Object.values(edges).flat()])].sort();
  // Tarjan's strongly connected components.
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const visit = (v) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of targets(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return components
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map((folders) => ({ folders, path: closedPath(folders, targets) }));
}

/** A shortest closed path from the component's first folder back to it, inside the component. */
function closedPath(component, targets) {
  const inside = new Set(component);
  const start = component[0];
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of targets(v)) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [];
        for (let u = v; u !== null; u = previous.get(u)) path.unshift(u);
        return path;
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return component; // unreachable: every folder of a component reaches every other
}

/**
 * A cycle of `findCycles` in words: `agent → llm → agent`, one import per step from
 * `evidence` (`folderGraph`'s), and the whole group when more folders than the path's are tied.
 */
export function describeCycle({ folders, path }, evidence = {}) {
  const steps = path.map((a, i) => [a, path[(i + 1) % path.length]]);
  const lines = steps.map(([a, b]) => `    ${a} → ${b}: ${evidence[`${a}->${b}`] ?? '(an import)'}`);
  const group = folders.length > path.length ? [`    (all of ${folders.join(', ')} reach each other)`] : [];
  return [`  ${[...path, path[0]].join(' → ')}`, ...lines, ...group].join('\n');
}

/**
 * Checks the folders of `coreDir` (default src/core): the exit status (0: no cycle, 1: cycles)
 * and the message to print (every cycle named, with one import per step).
 */
export function checkCoreFolders(coreDir = join(root, 'src', 'core')) {
  const { edges, evidence } = folderGraph(coreDir);
  const cycles = findCycles(edges);
  const where = relative(root, resolve(coreDir)).split(sep).join('/') || '.';
  if (cycles.length === 0)
    return { status: 0, message: `${where}: ${Object.keys(edges).length} folders, no import cycle between them.` };
  return {
    status: 1,
    message:
      `${where} has ${cycles.length} folder import cycle(s); move the misplaced type or function to the lower folder:\n` +
      cycles.map((c) => describeCycle(c, evidence)).join('\n'),
  };
}

// `node scripts/coreFolderCycles.mjs [coreDir]` (part of `npm run lint`).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { status, message } = checkCoreFolders(process.argv[2]);
  (status === 0 ? console.log : console.error)(message);
  process.exit(status);
}
