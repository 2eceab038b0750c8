/**
 * Ranks workspace files for an `@` mention typed in the chat's composer. Pure (no VS Code, no
 * I/O), so it is unit-tested; the host lists the files (workspaceFiles.ts).
 */

/** How well a path matches: lower is better; undefined when it does not match at all. */
export function mentionScore(path: string, query: string): number | undefined {
  const q = query.toLowerCase();
  const p = path.toLowerCase();
  if (q === '') return 0;
  const base = p.slice(p.lastIndexOf('/') + 1);
  const stem = base.includes('.') ? base.slice(0, base.lastIndexOf('.')) : base;
  if (base === q || stem === q) return 0;
  if (base.startsWith(q)) return 1;
  if (base.includes(q)) return 2;
  if (p.startsWith(q)) return 3;
  if (p.includes(q)) return 4;
  const gaps = subsequenceGaps(p, q);
  // A fuzzy match ranks after every substring match; fewer gaps first.
  return gaps === undefined ? undefined : 5 + gaps / (gaps + 1);
}

/**
 * The paths that match `query`, most relevant first: the file name equal to it, then starting
 * with it, then holding it, then the path starting with or holding it, then its characters in
 * order with the fewest gaps; ties go to the shorter path, then alphabetical. At most `limit`.
 * An empty query lists the shallowest files first.
 */
export function rankMentions(paths: readonly string[], query: string, limit: number): string[] {
  const scored: Array<{ path: string; score: number }> = [];
  for (const path of paths) {
    const score = mentionScore(path, query);
    if (score !== undefined) scored.push({ path, score });
  }
  const depth = (p: string) => p.split('/').length;
  scored.sort(
    (a, b) =>
      a.score - b.score ||
      (query === '' ? depth(a.path) - depth(b.path) : 0) ||
      a.path.length - b.path.length ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
  return scored.slice(0, Math.max(0, limit)).map((s) => s.path);
}

/** How many runs of skipped characters a match of `q` as a subsequence of `p` needs (greedy), or undefined. */
function subsequenceGaps(p: string, q: string): number | undefined {
  let at = 0;
  let gaps = 0;
  let last = -1;
  for (const ch of q) {
    const found = p.indexOf(ch, at);
    if (found < 0) return undefined;
    if (last >= 0 && found !== last + 1) gaps++;
    last = found;
    at = found + 1;
  }
  return gaps;
}
