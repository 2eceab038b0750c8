import { strict as assert } from 'node:assert';
import { fakeChat } from './support/chatServiceFakes';

describe('ChatService: a summary that costs something', () => {
  it('is billed to the session, and the Compactions view is still told of it', async () => {
    const t = fakeChat();
    let changed = 0;
    t.service.onCompactionsChanged.on(() => void changed++);
    let requests = 0;
    let summaries = 0;
    t.service.onAgentEvent.on(({ event }) => {
      if (event.type === 'usage') requests += event.costUsd ?? Number.NaN;
      if (event.type === 'compaction_finished') summaries += event.records.reduce((n, r) => n + r.costUsd, 0);
    });
    // Eight turns with long answers: Compact Now has older turns to summarise.
    for (let i = 1; i <= 8; i++) {
      t.agents.answers.push({
        content: [{ type: 'text', text: `Answer ${i}: ${'the parser reads tokens. '.repeat(2000)}` }],
      });
      await t.service.send(`question ${i}`);
    }
    const before = changed;
    const outcome = await t.service.compactNow();
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.ok(summaries > 0, 'the summary cost something');
    assert.ok(changed > before, 'the Compactions view was told of the compaction');
    const status = t.posts.filter((p) => p.type === 'status').at(-1);
    assert.ok(status?.type === 'status' && status.costUsd !== null);
    assert.ok(
      Math.abs(status.costUsd - (requests + summaries)) < 1e-9,
      `${status.costUsd} = ${requests} + ${summaries}`,
    );
  });
});
