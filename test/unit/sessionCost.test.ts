import { strict as assert } from 'node:assert';
import { sessionToMarkdown } from '../../src/core/session/markdown';
import { replaySession } from '../../src/core/session/replay';
import { handoffNoteCost, sessionCostUsd } from '../../src/core/session/sessionCost';
import { entriesOf, sampleConversation, sampleHeader, usageEntry } from './support/sessionSamples';

const close = (a: number | undefined, b: number) => a !== undefined && Math.abs(a - b) < 1e-12;

describe("a saved session's cost", () => {
  it('is its requests, its summaries (restored or not), its subagents and the handoff note that started it', () => {
    const usage = [{ costUsd: 0.01 }, { costUsd: 0.02 }];
    const compactions = [{ entry: { costUsd: 0.004 } }, { entry: { costUsd: 0 } }];
    const subagents = [{ costUsd: 0.003 }];
    const continuedFrom = { sessionId: 'old', title: 'Old', noteCostUsd: 0.0051 };
    assert.ok(close(sessionCostUsd({ usage, compactions: [], subagents: [] }), 0.03));
    assert.ok(close(sessionCostUsd({ usage, compactions, subagents, continuedFrom }), 0.0421));
    assert.ok(close(sessionCostUsd({ usage: [], compactions: [], subagents: [], continuedFrom }), 0.0051));
    assert.equal(sessionCostUsd({ usage: [{ costUsd: undefined }], compactions, subagents: [] }), undefined);
    assert.equal(sessionCostUsd({ usage, compactions, subagents: [{ costUsd: undefined }] }), undefined);
    // A summary or the handoff note written by a model without a known price: unknown, not the priced part.
    const unpriced = [...compactions, { entry: { costUsd: 0, costUnknown: true as const } }];
    assert.equal(sessionCostUsd({ usage, compactions: unpriced, subagents }), undefined);
    assert.equal(
      sessionCostUsd({ usage, compactions, subagents, continuedFrom: { ...continuedFrom, noteCostUnknown: true } }),
      undefined,
    );
    assert.equal(handoffNoteCost(undefined), 0);
    assert.equal(handoffNoteCost(continuedFrom), 0.0051);
    assert.equal(handoffNoteCost({ sessionId: 'old', title: 'Old', noteCostUnknown: true }), undefined);
  });

  it("the Markdown export's cost is that figure (the note of a session handed off to included)", () => {
    const header = { ...sampleHeader(), continuedFrom: { sessionId: 'old', title: 'Old', noteCostUsd: 0.002 } };
    const s = replaySession([...entriesOf(sampleConversation(), header), usageEntry(0.0123)]);
    const md = sessionToMarkdown(s);
    assert.match(md, /^- Continued from: Old \(`old`\)$/m);
    assert.match(md, /· Requests: 1 · Cost: \$0\.0143$/m);
  });
});
