import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import type { Plan } from '../../src/core/conversation/conversationModel';
import { continuedTitle } from '../../src/core/handoff/handoffContent';
import { Build } from './support/builders';
import { withStorePort } from './support/storePort';

const PLAN: Plan = { steps: [{ step: 'Switch to json5', status: 'in_progress' }] };

describe('handoff: the session files', () => {
  it('a session handed off to names the old one in its header, is titled after it and starts with its plan', async () => {
    await withStorePort('cp-handoff-', 1_800_000_000_000, async (port, clock) => {
      const old = await port.create('claude-sonnet-4-6');
      const b = new Build('o');
      await old.sink.message(b.message('user', [b.text('Make the parser accept trailing commas')], 1));
      await old.sink.message(b.message('assistant', [b.text('Use json5. MARKER-77', 'assistant')], 1));
      await old.close();
      clock.advance(60_000);
      const from = { sessionId: old.id, title: 'Make the parser accept trailing commas' };
      const fresh = await port.create('claude-sonnet-4-6', { continuedFrom: from, plan: PLAN });
      assert.deepEqual(fresh.continuedFrom, from);
      assert.equal(fresh.title, 'Make the parser accept trailing commas (continued)');
      assert.deepEqual(fresh.plan, PLAN);
      assert.equal(fresh.planChanges?.length, 1);
      await fresh.close();

      // Read back: the header and the plan line survive a reopen.
      const reopened = await port.open(fresh.id);
      assert.ok(reopened.ok);
      assert.deepEqual(reopened.session.continuedFrom, from);
      assert.equal(reopened.session.title, 'Make the parser accept trailing commas (continued)');
      assert.deepEqual(reopened.session.plan, PLAN);

      // The old session, read for recall while the new one is open: read-only, its file untouched.
      const file = (await fsp.readdir(port['store'].dir)).find((f) => f === `${old.id}.jsonl`);
      assert.ok(file);
      const before = await fsp.readFile(`${port['store'].dir}/${file}`, 'utf8');
      const past = await port.past(old.id);
      assert.equal(past?.sessionId, old.id);
      assert.equal(past?.title, 'Make the parser accept trailing commas');
      assert.match(JSON.stringify(past?.messages), /MARKER-77/);
      assert.equal(await fsp.readFile(`${port['store'].dir}/${file}`, 'utf8'), before);
      assert.equal(await port.past('2026-01-01T00-00-00-nosuch'), undefined);
      await reopened.session.close();
    });
  });

  it("the handoff note's cost is the new session's: in its bill when created and again when reopened", async () => {
    await withStorePort('cp-handoff-cost-', 1_800_000_000_000, async (port) => {
      const from = { sessionId: '2026-01-01T00-00-00-old001', title: 'Trailing commas', noteCostUsd: 0.0042 };
      const fresh = await port.create('claude-sonnet-4-6', { continuedFrom: from });
      assert.equal(fresh.costUsd, 0.0042, 'a new session handed off to starts with what its note cost');
      await fresh.sink.usage({
        at: 1,
        model: 'claude-sonnet-4-6',
        usage: { input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        estimatedTokens: 1000,
        costUsd: 0.0045,
      });
      await fresh.close();
      const reopened = await port.open(fresh.id);
      assert.ok(reopened.ok);
      assert.deepEqual(reopened.session.continuedFrom, from);
      assert.ok(Math.abs((reopened.session.costUsd ?? NaN) - 0.0087) < 1e-12, 'the request and the note');
      await reopened.session.close();
    });
  });

  it("a note whose price is unknown makes the new session's cost unknown, created and reopened", async () => {
    await withStorePort('cp-handoff-unpriced-', 1_800_000_000_000, async (port) => {
      const from = {
        sessionId: '2026-01-01T00-00-00-old001',
        title: 'Trailing commas',
        noteCostUnknown: true as const,
      };
      const fresh = await port.create('claude-sonnet-4-6', { continuedFrom: from });
      assert.equal(fresh.costUsd, undefined, 'unknown, not $0');
      await fresh.close();
      const reopened = await port.open(fresh.id);
      assert.ok(reopened.ok);
      assert.deepEqual(reopened.session.continuedFrom, from);
      assert.equal(reopened.session.costUsd, undefined);
      await reopened.session.close();
    });
  });

  it('the continued title is marked once, however long the chain', () => {
    assert.equal(continuedTitle('Fix the parser'), 'Fix the parser (continued)');
    assert.equal(continuedTitle('Fix the parser (continued)'), 'Fix the parser (continued)');
  });
});
