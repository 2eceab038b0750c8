/**
 * The `docs:bench` command (also `npm run bench -- readme-table …`): reads a saved replay-all
 * output and rewrites README.md's summary and docs/benchmarks.md's tables from it (readmeTable.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderDocs, replayAllJson } from './readmeTable';

/** The command: reads the saved output, rewrites both files' blocks. */
export async function runReadmeTable(args: readonly string[]): Promise<number> {
  const [file, readmePath = 'README.md', benchmarksPath = 'docs/benchmarks.md'] = args;
  if (!file) {
    process.stderr.write(
      'usage: npm run docs:bench -- <saved replay-all output> [README.md] [docs/benchmarks.md]\n' +
        '  (save one with: npm run bench -- replay-all > /tmp/replay-all.txt)\n',
    );
    return 2;
  }
  const json = replayAllJson(readFileSync(file, 'utf8'));
  if ('error' in json) {
    process.stderr.write(`${json.error}\n`);
    return 1;
  }
  const next = renderDocs(json, readFileSync(readmePath, 'utf8'), readFileSync(benchmarksPath, 'utf8'));
  if ('error' in next) {
    process.stderr.write(`${next.error}\n`);
    return 1;
  }
  writeFileSync(readmePath, next.readme);
  writeFileSync(benchmarksPath, next.benchmarks);
  const unknown = json.meta ? '' : ' (the output has no meta: run, commit and machine written as unknown)';
  console.log(
    `${readmePath} (summary) and ${benchmarksPath} (tables): rewritten from ${file}, ${json.rows.length} rows${unknown}`,
  );
  return 0;
}
