import { strict as assert } from 'node:assert';
import { guardArrival } from '../../bench/arrival';
import type { Compactor } from '../../src/core/compaction/compactor';
import type { Message, TextBlock } from '../../src/core/conversation/conversationModel';
import { emptyState, testConfig } from './support/builders';

const words = (id: string, chars: number): TextBlock => ({
  type: 'text',
  text: `${id}: ${'w'.repeat(chars)}`,
  meta: { id, tier: 1, source: 'user', createdAt: 0, pinned: false, compactable: false },
});

describe("bench arrival: the user's words over the paste threshold are saved to files, as the chat does", () => {
  // No tool results here, so the compactor is never asked.
  const compactor = {} as Compactor;
  const state = { ...emptyState(), config: testConfig({ pasteThresholdChars: 100_000 }) };

  it('saves the largest blocks of a message whose words together pass the threshold (files attached one by one)', () => {
    const m: Message = {
      id: 'm1',
      role: 'user',
      turn: 1,
      blocks: [words('a', 75_000), words('b', 80_000), words('c', 60_000), words('d', 70_000), words('q', 40)],
    };
    const r = guardArrival(m, state, compactor, 100_000, new Map());
    assert.equal(r.pastes, 3, 'b, a and d: then 60,040 characters are left');
    const texts = r.message.blocks.map((b) => (b as TextBlock).text);
    assert.equal(texts[2], m.blocks[2]?.type === 'text' ? m.blocks[2].text : '', 'c stays');
    assert.equal(texts[4], `q: ${'w'.repeat(40)}`, 'the question stays');
    assert.ok(texts.filter((t) => t.length < 5_000).length >= 4, 'the saved ones are references');
  });

  it('leaves a message within the threshold alone', () => {
    const m: Message = { id: 'm2', role: 'user', turn: 1, blocks: [words('a', 50_000), words('b', 49_000)] };
    const r = guardArrival(m, state, compactor, 100_000, new Map());
    assert.equal(r.pastes, 0);
    assert.equal(r.message, m);
  });
});
