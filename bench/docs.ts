/**
 * `npm run docs:bench -- <saved replay-all output> [README.md] [docs/benchmarks.md]`: writes the
 * README's benchmark summary and docs/benchmarks.md's tables from one saved run (readmeTable.ts).
 */
import { runReadmeTable } from './readmeTableRun';

void runReadmeTable(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
