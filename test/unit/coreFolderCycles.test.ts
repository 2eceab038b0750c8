import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { checkCoreFolders, describeCycle, findCycles, folderGraph } from '../../scripts/coreFolderCycles.mjs';

/**
 * The folder cycle check of `npm run lint` (scripts/coreFolderCycles.mjs): src/core's folders
 * import each other without a cycle, and the check finds one when there is one.
 */
describe('lint: src/core folder cycles', () => {
  it('finds a cycle in a folder graph, with the group it ties and one closed path', () => {
    const cycles = findCycles({ a: ['b'], b: ['c'], c: ['a', 'd'], d: [], e: ['a'] });
    assert.deepEqual(cycles, [{ folders: ['a', 'b', 'c'], path: ['a', 'b', 'c'] }]);
    const words = describeCycle(cycles[0]!, { 'a->b': "a/x.ts imports '../b/y'" });
    assert.match(words, /a → b → c → a/);
    assert.match(words, /a → b: a\/x\.ts imports '\.\.\/b\/y'/);
  });

  it('finds each group separately, and the shortest path through a larger group', () => {
    const cycles = findCycles({ a: ['b'], b: ['a', 'c'], c: ['a'], x: ['y'], y: ['x'] });
    assert.deepEqual(cycles, [
      { folders: ['a', 'b', 'c'], path: ['a', 'b'] },
      { folders: ['x', 'y'], path: ['x', 'y'] },
    ]);
    assert.match(describeCycle(cycles[0]!), /all of a, b, c reach each other/);
  });

  it('passes an acyclic graph (self-edges ignored)', () => {
    assert.deepEqual(findCycles({ a: ['b', 'c'], b: ['c'], c: [] }), []);
    assert.deepEqual(findCycles({ a: ['a'] }), []);
    assert.deepEqual(findCycles({}), []);
  });

  describe('on a tree of files', () => {
    let dir = '';
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'core-cycles-'));
      write('low/words.ts', "export const a = 1;\nimport { z } from 'valibot';\n");
      write('high/deep/use.ts', "import { a } from '../../low/words';\nexport const b = a;\n");
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('reads the folder graph from the imports (package imports left out) and passes it', () => {
      assert.deepEqual(folderGraph(dir).edges, { high: ['low'], low: [] });
      assert.equal(checkCoreFolders(dir).status, 0);
    });

    it('fails on a cycle made by a type import, a re-export or a dynamic import, naming the import', () => {
      for (const line of [
        "import type { b } from '../high/deep/use';\n",
        "export { b } from '../high/deep/use';\n",
        "export const later = () => import('../high/deep/use');\n",
      ]) {
        write('low/back.ts', line);
        const { status, message } = checkCoreFolders(dir);
        assert.equal(status, 1, line);
        assert.match(message, /high → low → high/);
        assert.match(message, /low → high: low\/back\.ts imports '\.\.\/high\/deep\/use'/);
      }
    });
  });

  it('src/core has no folder import cycle', () => {
    const { status, message } = checkCoreFolders();
    assert.equal(status, 0, message);
    const { edges } = folderGraph(join(__dirname, '..', '..', 'src', 'core'));
    assert.ok(edges.llm && edges.text, 'llm/ and text/ are folders of the graph');
    assert.deepEqual(edges.text, [], 'text/ imports no other folder');
  });
});
