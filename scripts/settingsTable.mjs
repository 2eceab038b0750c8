// `npm run docs:settings`: the README's settings table, written from package.json's
// `contributes.configuration` (name, default, the first sentence of its description), between
// the README's `<!-- settings:begin -->` and `<!-- settings:end -->` markers, so it cannot drift
// from what VS Code shows. test/unit/readmeSettings.test.ts fails when the README's table is not
// what this renders.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BEGIN = '<!-- settings:begin -->';
export const END = '<!-- settings:end -->';

/** The first sentence of a setting's description, as plain one-line Markdown. */
function oneLine(p) {
  const text = String(p.markdownDescription ?? p.description ?? '')
    .replace(/`#([\w.]+)#`/g, '`$1`')
    .replace(/\s+/g, ' ')
    .trim();
  // "e.g." and "i.e." end no sentence.
  const guarded = text.replace(/\b(e\.g|i\.e|etc)\./g, (a) => a.replaceAll('.', '\u2024'));
  const m = /^(.*?[.!?])(\s|$)/.exec(guarded);
  const first = (m ? m[1] : guarded).replaceAll('\u2024', '.').replace(/\|/g, '\\|');
  return first.length > 160 ? `${first.slice(0, 157).trimEnd()}…` : first;
}

/** A default value as the table shows it. */
function shown(v) {
  if (v === undefined) return '—';
  if (v === null) return '`null` (automatic)';
  if (typeof v === 'object') return Object.keys(v).length === 0 ? '`{}`' : `\`${JSON.stringify(v)}\``;
  return v === '' ? '`""`' : `\`${String(v)}\``;
}

/** The table for a package.json object. */
export function renderSettings(pkg) {
  const conf = pkg.contributes.configuration;
  const props = Object.assign({}, ...(Array.isArray(conf) ? conf : [conf]).map((c) => c.properties ?? {}));
  const rows = Object.entries(props)
    .filter(([, p]) => !p.deprecationMessage && !p.markdownDeprecationMessage)
    .map(([name, p]) => `| \`${name.replace(/^contextPipeline\./, '')}\` | ${shown(p.default)} | ${oneLine(p)} |`);
  return ['| Setting (`contextPipeline.…`) | Default | What it does |', '|---|---|---|', ...rows].join('\n');
}

/** The README with its settings block replaced by `table`; throws when the markers are missing. */
export function withSettings(readme, table) {
  const a = readme.indexOf(BEGIN);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error(`README.md has no ${BEGIN} … ${END} block`);
  return `${readme.slice(0, a + BEGIN.length)}\n${table}\n${readme.slice(b)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const path = join(ROOT, 'README.md');
  writeFileSync(path, withSettings(readFileSync(path, 'utf8'), renderSettings(pkg)));
  console.log('README.md: the settings table rewritten from package.json');
}
