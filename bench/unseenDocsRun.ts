/** `npm run docs:unseen -- <saved unseen output> [docs/benchmarks.md]` (see unseenDocs.ts). */
import { runUnseenDocs } from './unseenDocs';

process.exitCode = runUnseenDocs(process.argv.slice(2));
