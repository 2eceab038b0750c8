import { strict as assert } from 'node:assert';
import type { Message } from '../../src/core/conversation/conversationModel';
import { imageTokens } from '../../src/core/conversation/imageSize';
import { toolItem, type TokensOf } from '../../src/host/chat/transcript';
import { pngBase64 } from './support/images';

/** A tool card's token figure is what the result costs the model: its text and its images. */
describe('chat: a tool card counts the images of its result', () => {
  const counter: TokensOf = Object.assign((m: Message) => m.blocks.length, {
    text: (t: string) => Math.ceil(t.length / 4),
  });

  it('a screenshot result is counted at its pixel cost, not as its caption alone', () => {
    const data = pngBase64(2560, 1440);
    const shot = toolItem(
      'toolu_1',
      'read_file',
      { path: 'a.png' },
      {
        content: [
          { type: 'text', text: 'page 1 captured' },
          { type: 'image', mediaType: 'image/png', data },
        ],
        isError: false,
      },
      counter,
    );
    assert.ok(imageTokens(data) > 1_000, `${imageTokens(data)}`);
    assert.equal(shot.kind === 'tool' ? shot.tokens : undefined, Math.round(4 + 5 + imageTokens(data)));
    const text = toolItem(
      'toolu_2',
      'read_file',
      { path: 'a.ts' },
      { content: 'x'.repeat(400), isError: false },
      counter,
    );
    assert.equal(text.kind === 'tool' ? text.tokens : undefined, 100);
  });
});
