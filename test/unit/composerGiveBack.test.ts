import { strict as assert } from 'node:assert';
import { MAX_MESSAGE_IMAGES } from '../../src/protocol/chat';
import { giveBack } from '../../src/webview/chat/giveBack';
import type { AttachedImage } from '../../src/webview/chat/imageAttach';

const image = (name: string): AttachedImage => ({
  name,
  mediaType: 'image/png',
  data: `${name}-data`,
  width: 10,
  height: 10,
  tokens: 1,
});
const names = (images: readonly AttachedImage[]) => images.map((i) => i.name);

describe('chat composer: a message the host refused is given back', () => {
  const refused = { text: 'explain this chart', images: [image('chart.png')] };

  it('with the box empty: its words and images come back as they were, with no note', () => {
    const back = giveBack(refused, { text: '', images: [], queued: false });
    assert.equal(back.text, 'explain this chart');
    assert.deepEqual(names(back.images), ['chart.png']);
    assert.equal(back.queued, false);
    assert.equal(back.note, undefined);
  });

  it('with a message queued meanwhile: the queue is cancelled and both are in the box, the refused one first, its images with its words', () => {
    const back = giveBack(refused, { text: 'and then fix the axis', images: [], queued: true });
    assert.equal(back.queued, false, 'the queued message does not go on its own (with the refused one’s images)');
    assert.equal(back.text, 'explain this chart\n\nand then fix the axis', 'nothing written is lost');
    assert.deepEqual(names(back.images), ['chart.png'], 'the images stay with the words they were pasted with');
    assert.match(back.note ?? '', /not sent.*back in the box.*queued/);
  });

  it('with words and images added meanwhile (not queued): the refused message goes first, every image is kept', () => {
    const back = giveBack(refused, { text: 'also this one', images: [image('logo.png')], queued: false });
    assert.equal(back.text, 'explain this chart\n\nalso this one');
    assert.deepEqual(names(back.images), ['chart.png', 'logo.png']);
    assert.match(back.note ?? '', /not sent.*back in the box/);
  });

  it('with only images pasted meanwhile: the refused words come back and the images join its own', () => {
    const back = giveBack(refused, { text: '  ', images: [image('logo.png')], queued: false });
    assert.equal(back.text, 'explain this chart');
    assert.deepEqual(names(back.images), ['chart.png', 'logo.png']);
  });

  it('the same words recalled into the box (Up arrow) are not doubled', () => {
    const back = giveBack(refused, { text: 'explain this chart', images: [], queued: true });
    assert.equal(back.text, 'explain this chart');
    assert.equal(back.queued, false);
  });

  it('more images than a message takes: all are kept, and the note says how many to remove', () => {
    const many = Array.from({ length: MAX_MESSAGE_IMAGES }, (_, i) => image(`new-${i}.png`));
    const back = giveBack(refused, { text: 'more', images: many, queued: false });
    assert.equal(back.images.length, MAX_MESSAGE_IMAGES + 1);
    assert.match(back.note ?? '', new RegExp(`at most ${MAX_MESSAGE_IMAGES} images: remove 1`));
  });
});
