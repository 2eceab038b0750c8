/**
 * `npm run icon`: writes media/icon.png, the 128×128 Marketplace icon, from media/icon.svg (the
 * activity-bar glyph): the glyph's shapes on a dark rounded square, its strokes light and its
 * filled shapes in the accent colour. Rendered with resvg (@resvg/resvg-js), installed on first
 * use into a folder under the OS temp dir so the project does not depend on it; the PNG is
 * committed, so only a change to the glyph or the colours needs this run again.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RESVG = '@resvg/resvg-js@2.6.2';
/** The background, also package.json's galleryBanner.color (the Marketplace header). */
export const BACKGROUND = '#1E2433';
const FOREGROUND = '#F4EFE6';
const ACCENT = '#E8825A';
const SIZE = 128;

/** The icon's SVG at SIZE×SIZE: the glyph of `glyphSvg` (24×24), scaled and centred on the background. */
export function iconSvg(glyphSvg) {
  const inner = /<svg[^>]*>([\s\S]*)<\/svg>/.exec(glyphSvg)?.[1];
  if (!inner) throw new Error('media/icon.svg: no <svg> element');
  const shapes = inner
    .replace(/<title>[\s\S]*?<\/title>/, '')
    .replace(/fill="currentColor"/g, `fill="${ACCENT}" stroke="${ACCENT}"`);
  // The glyph spans about 1.7–21.8 × 1.7–22.3 of its 24-unit box (strokes included): centre it.
  const scale = 4.1;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">`,
    `<rect width="${SIZE}" height="${SIZE}" rx="26" fill="${BACKGROUND}"/>`,
    `<g transform="translate(${SIZE / 2} ${SIZE / 2}) scale(${scale}) translate(-11.75 -12)" fill="none" stroke="${FOREGROUND}" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round">`,
    shapes,
    '</g>',
    '</svg>',
  ].join('');
}

function resvg() {
  const dir = join(tmpdir(), 'context-pipeline-render-icon');
  const req = createRequire(join(dir, 'index.js'));
  if (!existsSync(join(dir, 'node_modules', '@resvg', 'resvg-js'))) {
    mkdirSync(dir, { recursive: true });
    execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--prefix', dir, RESVG], { stdio: 'inherit' });
  }
  return req('@resvg/resvg-js');
}

const root = join(import.meta.dirname, '..');
const svg = iconSvg(readFileSync(join(root, 'media', 'icon.svg'), 'utf8'));
const { Resvg } = resvg();
const png = new Resvg(svg, { fitTo: { mode: 'width', value: SIZE }, font: { loadSystemFonts: false } })
  .render()
  .asPng();
writeFileSync(join(root, 'media', 'icon.png'), png);
console.log(`media/icon.png: ${SIZE}×${SIZE}, ${png.length} bytes, from media/icon.svg`);
