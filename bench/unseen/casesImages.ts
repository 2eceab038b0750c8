/**
 * Unseen sessions with images (family 04): 180 browser screenshots in tool results over a
 * session; huge base64 images past the API's per-image and per-request limits (4.9 MB
 * retina PNGs, one over 5 MB, one 9000 px wide, 15 in one result); a user who pastes a
 * screenshot with each of 140 messages.
 */
import type { UnseenCase } from './context';
import { imageBlock } from './images';
import { smallRound } from './session';

const screenshots: UnseenCase = {
  name: '04-images-180-screenshots',
  build: (ctx) => {
    const rng = ctx.rng(401);
    const s = ctx.session(rng, { model: 'claude-sonnet-4-5', sys: 12_000 });
    for (let turn = 0; turn < 30; turn++) {
      s.user(`Check page ${turn} of the app in the browser and fix layout bugs.`);
      for (let r = 0; r < 6; r++)
        s.round([
          {
            name: 'mcp__playwright__browser_take_screenshot',
            input: { filename: `shot-${turn}-${r}.png` },
            result: [
              { type: 'text', text: `Screenshot of page ${turn}, step ${r}` },
              imageBlock(1280, 800, 60_000),
              { type: 'text', text: rng.text(400, 'prose') },
            ],
          },
        ]);
      s.answer('Fixed the layout.');
    }
    return s.done();
  },
};

const hugeBase64: UnseenCase = {
  name: '04-images-huge-base64',
  build: (ctx) => {
    // 4.9 MB PNGs (7 of them pass the 32 MB body), one of 6 MB (> 5 MB), one 9000 px wide, and a
    // result of 15 images between text parts.
    const rng = ctx.rng(402);
    const s = ctx.session(rng, { model: 'claude-opus-4-5', sys: 12_000 });
    s.user('Take full-page retina screenshots of every page and compare.');
    for (let r = 0; r < 9; r++)
      s.round([
        {
          name: 'screenshot',
          input: { url: `http://localhost:3000/p${r}` },
          result: [
            { type: 'text', text: `page ${r}` },
            imageBlock(2880, 7800, 4_900_000),
            { type: 'text', text: 'done' },
          ],
        },
      ]);
    s.round([{ name: 'screenshot', input: { url: 'x' }, result: [imageBlock(3000, 3000, 6_300_000)] }]);
    s.round([{ name: 'screenshot', input: { url: 'y' }, result: [imageBlock(9000, 1200, 300_000)] }]);
    s.round([
      {
        name: 'batch',
        input: {},
        result: Array.from({ length: 30 }, (_, i) =>
          i % 2 ? imageBlock(2400, 1600, 50_000) : { type: 'text', text: `item ${i}` },
        ),
      },
    ]);
    for (let r = 0; r < 20; r++) smallRound(s, rng);
    s.answer('Compared.');
    s.user([
      { type: 'text', text: 'Here is what I see:' },
      imageBlock(3000, 2000, 4_800_000),
      imageBlock(3000, 2000, 4_800_000),
    ]);
    for (let r = 0; r < 20; r++) smallRound(s, rng);
    s.answer('Done.');
    return s.done();
  },
};

const userPastes: UnseenCase = {
  name: '04-images-user-pastes-140',
  build: (ctx) => {
    // The user's own images (tier 1), one with every message.
    const rng = ctx.rng(403);
    const s = ctx.session(rng, { model: 'claude-sonnet-4-5', sys: 12_000 });
    for (let turn = 0; turn < 140; turn++) {
      s.user([{ type: 'text', text: `Still broken, see screenshot ${turn}` }, imageBlock(2400, 1500, 40_000)]);
      smallRound(s, rng, 2000);
      s.answer(`Adjusted the CSS (${turn}).`);
    }
    return s.done();
  },
};

/** Family 04: images in tool results and in the user's messages, over the API's limits. */
export const IMAGE_CASES: readonly UnseenCase[] = [screenshots, hugeBase64, userPastes];
