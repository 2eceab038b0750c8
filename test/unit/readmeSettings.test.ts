import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
// @ts-expect-error -- a plain ES module script without type declarations
import { BEGIN, END, renderSettings, withSettings } from '../../scripts/settingsTable.mjs';

const root = join(__dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;

describe("the README's settings table (scripts/settingsTable.mjs)", () => {
  it('is exactly what package.json renders: a setting added, renamed or re-described fails until `npm run docs:settings`', () => {
    const table = (renderSettings as (p: unknown) => string)(pkg);
    assert.equal((withSettings as (r: string, t: string) => string)(readme, table), readme);
  });

  it('lists every setting once, with its default and one line', () => {
    const table = (renderSettings as (p: unknown) => string)(pkg);
    const rows = table.split('\n').slice(2);
    const conf = (pkg.contributes as { configuration: { properties: Record<string, unknown> } }).configuration;
    assert.equal(rows.length, Object.keys(conf.properties).length);
    for (const r of rows) assert.match(r, /^\| `[\w.]+` \| .+ \| .+[.!?…] \|$/, r);
    assert.ok(readme.indexOf(BEGIN as string) < readme.indexOf(END as string));
  });

  it('keeps the README short: at most 300 lines and 25 KB', () => {
    assert.ok(readme.split('\n').length <= 300, `${readme.split('\n').length} lines`);
    assert.ok(Buffer.byteLength(readme) <= 25_000, `${Buffer.byteLength(readme)} bytes`);
  });
});
