// Images pasted into the chat's composer, in a real VS Code: a retina screenshot (2560×1440)
// pasted from the clipboard is scaled to 1568×882 in the webview (the size above which the API
// scales it down itself), shown in the tray with its tokens, and sent with the words as an image
// block the fake server accepts; the chat shows it as a thumbnail. A file that is not an image
// is refused with its name and loses nothing typed; an image without words is not sent.
//   npm run package && node --import tsx --test test/vscode/pastedImages.test.mjs
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { closeWorld, startAgentWorld } from './agentHarness.mjs';
import { eventually, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';

/**
 * Pastes into the composer's input, in the webview: a PNG drawn on a canvas at `width` ×
 * `height` (a real, decodable image) and, with `broken`, a file that claims to be a PNG; with
 * `drop`, drops it on the composer instead (what VS Code hands the panel when Shift is held).
 * @param {import('playwright-core').Frame} frame
 * @param {{ width: number, height: number, broken?: boolean, drop?: boolean }} what
 */
async function pasteImage(frame, what) {
  await frame.getByRole('textbox', { name: 'Message' }).evaluate(async (input, w) => {
    const dt = new DataTransfer();
    if (w.broken) dt.items.add(new File(['this is not an image'], 'notes.png', { type: 'image/png' }));
    else {
      const canvas = document.createElement('canvas');
      canvas.width = w.width;
      canvas.height = w.height;
      const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
      ctx.fillStyle = '#1e6fd9';
      ctx.fillRect(0, 0, w.width, w.height);
      ctx.fillStyle = '#ffffff';
      ctx.font = '160px sans-serif';
      ctx.fillText('HEADER', 80, 240);
      const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
      dt.items.add(new File([/** @type {Blob} */ (blob)], 'screenshot.png', { type: 'image/png' }));
    }
    if (w.drop) input.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    else input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, what);
}

/**
 * Width and height from a base64 PNG's IHDR.
 * @param {string} data
 */
function pngSize(data) {
  const b = Buffer.from(data, 'base64');
  assert.equal(b.subarray(1, 4).toString('latin1'), 'PNG', 'the image is a PNG');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

describe('images pasted into the chat, in a real VS Code', { timeout: suiteTimeout(600_000) }, () => {
  /** @type {import('./agentHarness.mjs').AgentWorld} */
  let world;
  /** @type {typeof import('./workbench.mjs')} */
  let workbench;
  before(async () => {
    workbench = await import('./workbench.mjs');
    world = await startAgentWorld({ workspaceFiles: { 'README.md': '# App\n' } });
  });

  after(() => closeWorld(world, 'pasted-images-last'));

  test('a pasted retina screenshot is scaled, shown with its tokens, sent with the words, and shown in the chat', async () => {
    let f = world.frame;
    let input = f.getByRole('textbox', { name: 'Message' });

    // Not an image: refused by name; what was typed stays.
    await input.fill('Why is the header cut off?');
    await pasteImage(f, { width: 0, height: 0, broken: true });
    const note = f.getByTestId('image-note');
    await note.filter({ hasText: 'notes.png could not be read as an image' }).waitFor({ timeout: UI_TIMEOUT });
    assert.equal(await input.inputValue(), 'Why is the header cut off?');
    assert.equal(await f.getByTestId('image-chip').count(), 0);

    // A real screenshot: scaled to 1568 px on its long edge, with its tokens.
    await pasteImage(f, { width: 2560, height: 1440 });
    let chip = f.getByTestId('image-chip');
    await chip.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match(await chip.innerText(), /1568×882 · 1,600 tok/);
    assert.match(await note.innerText(), /screenshot\.png scaled from 2560×1440 to 1568×882/);

    // A second, small image, dropped, goes as it is; its remove button takes it out again.
    await pasteImage(f, { width: 800, height: 600, drop: true });
    await chip.nth(1).waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match(await chip.nth(1).innerText(), /800×600 · 640 tok/);
    await workbench.screenshot(world.page, 'pasted-images-tray');
    await f
      .locator('footer.composer')
      .screenshot({ path: join(workbench.SCREENSHOT_DIR, 'pasted-images-tray-close.png') });
    await chip
      .nth(1)
      .getByRole('button', { name: /^Remove screenshot\.png, 800×600/ })
      .click();
    await eventually('the second image to leave the tray', async () => (await chip.count()) === 1);

    // Kept with the draft: another view in the side bar disposes the chat webview; back, the
    // words and the image are still there.
    await world.hideAndReopenChat();
    f = world.frame;
    input = f.getByRole('textbox', { name: 'Message' });
    chip = f.getByTestId('image-chip');
    await chip.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await chip.count(), 1);
    assert.match(await chip.innerText(), /1568×882 · 1,600 tok/);
    assert.equal(await input.inputValue(), 'Why is the header cut off?');

    // Without words it is not sent, and the image stays.
    await input.fill('');
    await f.getByRole('button', { name: 'Send' }).click();
    await f.getByTestId('send-problem').filter({ hasText: 'Add a few words to go with the image' }).waitFor({
      timeout: UI_TIMEOUT,
    });
    assert.equal(await chip.count(), 1);

    world.fake.script({ text: 'The header is clipped by the fixed toolbar. IMAGE-SEEN' });
    await world.send('Why is the header cut off?');
    await world.waitForAnswer('IMAGE-SEEN', UI_TIMEOUT);
    await world.waitIdle();
    assert.equal(await chip.count(), 0, 'the tray is empty once the message went');

    const chat = /** @type {import('./agentHarness.mjs').SentRequest[]} */ (world.fake.requests).filter(
      (r) => r.path === '/v1/messages' && r.valid,
    );
    const last = chat.at(-1)?.body.messages.at(-1);
    assert.ok(last && last.role === 'user' && Array.isArray(last.content), 'the user message went as blocks');
    const images = last.content.filter((b) => b.type === 'image');
    assert.equal(images.length, 1, 'one image went');
    const image = images[0];
    assert.equal(image.source.type, 'base64');
    assert.equal(image.source.media_type, 'image/png');
    assert.deepEqual(pngSize(image.source.data), { width: 1568, height: 882 });
    const kinds = last.content.map((b) => b.type);
    assert.ok(kinds.indexOf('image') < kinds.lastIndexOf('text'), 'the image goes before the words');

    const thumb = f.locator('.item.user', { hasText: 'Why is the header cut off?' }).getByTestId('user-images');
    await thumb.locator('img').waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await thumb.locator('img').count(), 1);
    await workbench.screenshot(world.page, 'pasted-images-chat');

    // Pinning rebuilds the whole transcript, which names the image by ref without its data
    // (posted once per webview): the thumbnail still shows, decoded from what the view holds.
    await f.locator('.item.user', { hasText: 'Why is the header cut off?' }).locator('.pin').click();
    await f.locator('.item.user.pinned', { hasText: 'Why is the header cut off?' }).waitFor({ timeout: UI_TIMEOUT });
    const rebuilt = f.locator('.item.user', { hasText: 'Why is the header cut off?' }).getByTestId('user-images');
    await rebuilt.locator('img').waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await eventually('the rebuilt thumbnail to decode at 1568 px', async () =>
      rebuilt.locator('img').evaluate((img) => /** @type {HTMLImageElement} */ (img).naturalWidth === 1568),
    );
    assert.equal(await rebuilt.locator('.image-missing').count(), 0, 'no image shows as not loaded');

    // Saved with the session: after Developer: Reload Window the message shows it again.
    await world.reloadWindow();
    const again = world.frame
      .locator('.item.user', { hasText: 'Why is the header cut off?' })
      .getByTestId('user-images')
      .locator('img');
    await again.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await again.count(), 1);
  });
});

describe(
  'a message the extension refuses gives its words and images back, in a real VS Code',
  {
    timeout: suiteTimeout(600_000),
  },
  () => {
    /** @type {import('./agentHarness.mjs').AgentWorld} */
    let world;
    before(async () => {
      // A window too small to work in: every message is refused before it is sent.
      world = await startAgentWorld({ settings: { 'contextPipeline.contextWindow': 10 } });
    });

    after(() => closeWorld(world, 'pasted-images-refused-last'));

    test('the words go back in the box and the image in the tray', async () => {
      const f = world.frame;
      const input = f.getByRole('textbox', { name: 'Message' });
      await pasteImage(f, { width: 640, height: 480 });
      const chip = f.getByTestId('image-chip');
      await chip.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await input.fill('What is wrong with this dialog?');
      await input.press('Enter');
      await f.locator('.item.error', { hasText: 'your message was not sent' }).waitFor({ timeout: UI_TIMEOUT });
      await eventually(
        'the words to come back',
        async () => (await input.inputValue()) === 'What is wrong with this dialog?',
      );
      assert.equal(await chip.count(), 1, 'the image is back in the tray');
      assert.match(await chip.innerText(), /640×480/);
      assert.equal(world.fake.requests.filter((r) => r.path === '/v1/messages').length, 0, 'nothing was sent');
    });
  },
);
