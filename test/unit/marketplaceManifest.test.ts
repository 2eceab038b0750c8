import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listFiles, PackageManager } from '@vscode/vsce';

const root = join(__dirname, '..', '..');
const REPOSITORY = 'https://github.com/context-pipeline/context-pipeline';

interface Manifest {
  readonly name: string;
  readonly publisher: string;
  readonly repository?: { readonly type?: string; readonly url?: string } | string;
  readonly bugs?: { readonly url?: string } | string;
  readonly homepage?: string;
  readonly icon?: string;
  readonly galleryBanner?: { readonly color?: string; readonly theme?: string };
  readonly categories?: readonly string[];
  readonly keywords?: readonly string[];
  readonly scripts: Readonly<Record<string, string>>;
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;

/**
 * The categories VS Code's extension manifest schema and the Marketplace accept (vsce 3 does not
 * check them itself: an unknown one is only found at publish time).
 */
const MARKETPLACE_CATEGORIES = new Set([
  'AI',
  'Azure',
  'Chat',
  'Data Science',
  'Debuggers',
  'Education',
  'Extension Packs',
  'Formatters',
  'Keymaps',
  'Language Packs',
  'Linters',
  'Machine Learning',
  'Notebooks',
  'Other',
  'Programming Languages',
  'SCM Providers',
  'Snippets',
  'Testing',
  'Themes',
  'Visualization',
]);

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from a PNG's IHDR chunk (the first, right after the signature); undefined when not a PNG. */
function pngSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  if (bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

const urlOf = (field: { readonly url?: string } | string | undefined) =>
  typeof field === 'string' ? field : field?.url;

/** An https URL on the project's repository (with any path, `.git` or fragment after it). */
function onRepository(url: string | undefined): boolean {
  if (url === undefined) return false;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' && `${u.origin}${u.pathname}`.replace(/\.git$/, '').startsWith(REPOSITORY);
  } catch {
    return false;
  }
}

describe('the Marketplace manifest (package.json, .vscodeignore)', () => {
  it('reads a PNG size from the IHDR bytes, and nothing from what is not a PNG', () => {
    const ihdr = Buffer.alloc(33);
    PNG_SIGNATURE.copy(ihdr);
    ihdr.writeUInt32BE(13, 8);
    ihdr.write('IHDR', 12, 'latin1');
    ihdr.writeUInt32BE(300, 16);
    ihdr.writeUInt32BE(200, 20);
    assert.deepEqual(pngSize(ihdr), { width: 300, height: 200 });
    assert.equal(pngSize(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), undefined);
  });

  it('has a 128×128 PNG icon that exists, and a gallery banner', () => {
    assert.ok(manifest.icon, 'package.json names an icon');
    assert.match(manifest.icon, /\.png$/, 'the Marketplace takes no SVG icon');
    const file = join(root, manifest.icon);
    assert.ok(existsSync(file), `${manifest.icon} exists (npm run icon writes it)`);
    assert.deepEqual(pngSize(readFileSync(file)), { width: 128, height: 128 });
    assert.match(manifest.galleryBanner?.color ?? '', /^#[0-9a-fA-F]{6}$/);
    assert.ok(['dark', 'light'].includes(manifest.galleryBanner?.theme ?? ''), 'galleryBanner.theme is dark or light');
  });

  it('lists known categories, AI and Chat among them, and at most 30 keywords', () => {
    const categories = manifest.categories ?? [];
    for (const c of categories) assert.ok(MARKETPLACE_CATEGORIES.has(c), `"${c}" is not a Marketplace category`);
    assert.ok(categories.includes('AI') && categories.includes('Chat'), 'categories include AI and Chat');
    const keywords = manifest.keywords ?? [];
    assert.ok(keywords.length > 0 && keywords.length <= 30, `${keywords.length} keywords: the Marketplace keeps 30`);
    assert.equal(new Set(keywords.map((k) => k.toLowerCase())).size, keywords.length, 'no keyword twice');
  });

  it('points repository, bugs and homepage at the one repository', () => {
    assert.ok(typeof manifest.repository === 'object' && manifest.repository.type === 'git');
    assert.ok(onRepository(urlOf(manifest.repository)), `repository: ${urlOf(manifest.repository)}`);
    assert.ok(onRepository(urlOf(manifest.bugs)), `bugs: ${urlOf(manifest.bugs)}`);
    assert.ok(onRepository(manifest.homepage), `homepage: ${manifest.homepage}`);
    assert.doesNotMatch(manifest.scripts.package ?? '', /--allow-missing-repository/, 'the repository is not missing');
  });

  it('ships the docs, the licence, the icon and the public API types, and nothing from src/ or test/', async function () {
    // vsce walks the whole tree (the VS Code harness's node_modules too: ~10 s idle, over the
    // default 20 s on a machine busy with other tests), so this bound is wider; it is no speed check.
    this.timeout(180_000);
    // What `vsce ls --no-dependencies` prints: .vscodeignore applied to the tree, in process and offline.
    const files = await listFiles({ cwd: root, packageManager: PackageManager.None });
    for (const f of [
      'package.json',
      'README.md',
      'CHANGELOG.md',
      'LICENSE',
      manifest.icon,
      'api/context-pipeline.d.ts',
    ])
      assert.ok(f && files.includes(f), `the .vsix carries ${f}`);
    const leaked = files.filter((f) => /^(src|test|bench|scripts|docs|node_modules)\//.test(f) || f.endsWith('.map'));
    assert.deepEqual(leaked, [], '.vscodeignore keeps sources, tests, benches, docs and source maps out of the .vsix');
  });
});
