// Types of coreFolderCycles.mjs, for the unit test that imports it (test/unit/coreFolderCycles.test.ts).

/** Folder → the folders it imports (sorted; every folder of the tree is a key). */
export type FolderEdges = Record<string, readonly string[]>;

/** A group of folders that all reach each other, and one closed path through it (start not repeated). */
export interface FolderCycle {
  readonly folders: readonly string[];
  readonly path: readonly string[];
}

/** The folder graph of the .ts files under `coreDir`, and one import per edge (`'a->b'` → `a/x.ts imports '../b/y'`). */
export function folderGraph(coreDir: string): { edges: FolderEdges; evidence: Record<string, string> };

/** Every group of folders that reach each other, with one closed path each; `[]` when the graph is acyclic. */
export function findCycles(edges: FolderEdges): FolderCycle[];

/** A cycle in words: the path, one import per step from `evidence`, and the whole group when larger. */
export function describeCycle(cycle: FolderCycle, evidence?: Record<string, string>): string;

/** Checks `coreDir` (default src/core): exit status 0 (no cycle) or 1, and the message naming every cycle. */
export function checkCoreFolders(coreDir?: string): { status: 0 | 1; message: string };
