import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

/** The change types of Keep a Changelog 1.1.0, in the order a release lists them. */
const TYPES = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'];

/** `## [x.y.z] - YYYY-MM-DD` headings (and `## [Unreleased]`), in file order, with the `###` sections under each. */
function releases(text: string): { name: string; date?: string; types: string[]; lines: string[] }[] {
  const out: { name: string; date?: string; types: string[]; lines: string[] }[] = [];
  for (const line of text.split('\n')) {
    const h2 = /^## \[([^\]]+)\](?: - (\S+))?\s*$/.exec(line);
    if (h2) out.push({ name: h2[1] as string, ...(h2[2] ? { date: h2[2] } : {}), types: [], lines: [] });
    else if (line.startsWith('## ')) out.push({ name: `malformed: ${line}`, types: [], lines: [] });
    else if (line.startsWith('### ')) out.at(-1)?.types.push(line.slice(4).trim());
    else out.at(-1)?.lines.push(line);
  }
  return out;
}

const semver = (v: string) => v.split('.').map(Number);
const newer = (a: string, b: string) => {
  const [x, y] = [semver(a), semver(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
};

describe('CHANGELOG.md keeps the Keep a Changelog form', () => {
  const all = releases(changelog);

  it('names the format, starts with Unreleased and has the released version of package.json', () => {
    assert.match(changelog, /^# Changelog\n/);
    assert.match(changelog, /\[Keep a Changelog\]\(https:\/\/keepachangelog\.com\/en\/1\.1\.0\/\)/);
    assert.equal(all[0]?.name, 'Unreleased');
    assert.ok(
      all.some((r) => r.name === version),
      `package.json's version ${version} has a "## [${version}] - date" section`,
    );
  });

  it('lists versions newest first, each dated, with only the format’s change types, in its order', () => {
    const versions = all.slice(1);
    for (const r of versions) {
      assert.match(r.name, /^\d+\.\d+\.\d+$/, `a release heading names a version: ${r.name}`);
      assert.match(r.date ?? '', /^\d{4}-\d{2}-\d{2}$/, `${r.name} has an ISO date`);
    }
    for (let i = 1; i < versions.length; i++) {
      const [a, b] = [versions[i - 1], versions[i]];
      assert.ok(a && b && newer(a.name, b.name), `${a?.name} comes before the older ${b?.name}`);
      assert.ok(a && b && (a.date ?? '') >= (b.date ?? ''), `${a?.name}'s date is not before ${b?.name}'s`);
    }
    for (const r of all) {
      assert.ok(r.types.length > 0, `${r.name} has at least one change type`);
      for (const t of r.types) assert.ok(TYPES.includes(t), `${r.name}: "### ${t}" is not a Keep a Changelog type`);
      const order = r.types.map((t) => TYPES.indexOf(t));
      assert.deepEqual(
        order,
        [...order].sort((a, b) => a - b),
        `${r.name}: change types in the format's order`,
      );
      assert.equal(new Set(r.types).size, r.types.length, `${r.name}: each change type once`);
    }
  });

  it('links every version heading to its comparison', () => {
    for (const r of all) {
      const ref = r.name === 'Unreleased' ? 'unreleased' : r.name;
      assert.match(changelog, new RegExp(`^\\[${ref.replace(/\./g, '\\.')}\\]: https://github\\.com/`, 'm'), ref);
    }
  });
});
