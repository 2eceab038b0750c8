import { strict as assert } from 'node:assert';
import { policy } from '../../bench/policies';
import { replay } from '../../bench/replayCore';
import { RequestEnds } from '../../src/core/compaction/requestEnds';
import type { Message } from '../../src/core/conversation/conversationModel';
import { assistant, at, prepare, usage, user, words } from './support/benchTranscripts';

/** Thirty turns of a short question and a 3,000-word answer a minute apart (Opus 4.6): a 100k window reaches its thresholds. */
function longSession(minutesApart = 1): string[] {
  const lines: string[] = [];
  let prompt = 0;
  for (let t = 0; t < 30; t++) {
    lines.push(user(`question ${t} about src/file${t}.ts`));
    prompt += 6;
    lines.push(
      usage({ prompt, read: Math.max(0, prompt - 3_010), at: at(t * minutesApart), model: 'claude-opus-4-6' }),
    );
    lines.push(assistant(`${words(3_000, `t${t}a`)} src/file${t}.ts`));
    prompt += 3_002;
  }
  return lines;
}

const message = (id: string): Message => ({ id, role: 'user', turn: 1, blocks: [] });

describe('bench: compaction on demand (policy default-server)', () => {
  it('summarises by compaction requests the replay API accepts, billed on the main model, reading what the cache holds', async () => {
    const t = prepare(longSession());
    const server = await replay(t, { window: 100_000, policy: policy('default-server') });
    assert.equal(server.invalidCount, 0, JSON.stringify([...server.invalid]));
    const calls = server.summariserModels.get('claude-opus-4-6') ?? 0;
    assert.ok(calls > 0 && server.summaries > 0, [...server.summariserModels].join());
    assert.ok(
      server.log.some((l) => /compaction on demand/.test(l)),
      server.log.join('\n'),
    );
    // A minute apart, the request that ended at the region's end cached it: read at $0.50 a million, not $5.
    const perCall = server.summariserCost.usd / calls;
    assert.ok(perCall < 0.1, `$${perCall} a call: the history up to the region's end was read from the cache`);
    // Ten minutes apart every 5-minute entry has expired: the same requests pay their input.
    const cold = await replay(prepare(longSession(10)), { window: 100_000, policy: policy('default-server') });
    const coldCalls = cold.summariserModels.get('claude-opus-4-6') ?? 1;
    assert.ok(cold.summariserCost.usd / coldCalls > perCall, 'dearer when nothing is cached');
  });

  it('RequestEnds finds the newest request that ended inside the stretch with the same prefix, alive within its lifetime', () => {
    const ends = new RequestEnds();
    const m = ['a', 'b', 'c', 'd', 'e', 'f'].map(message);
    ends.sent(m.slice(0, 2), 1_000);
    ends.sent(m.slice(0, 4), 2_000);
    ends.lastTtl('1h');
    ends.sent(m.slice(0, 6), 3_000);
    assert.deepEqual(ends.anchor(m, 4, 2_000 + 200_000, '5m'), { index: 3, alive: true });
    assert.deepEqual(ends.anchor(m, 4, 2_000 + 3_700_000, '5m'), { index: 3, alive: false });
    assert.deepEqual(ends.anchor(m, 2, 1_000 + 200_000, '5m'), { index: 1, alive: true });
    assert.deepEqual(ends.anchor(m, 2, 1_000 + 400_000, '5m'), { index: 1, alive: false });
    // An edit before the end (a new object for message b) makes the older prefixes unreadable.
    const edited = [m[0], message('b'), ...m.slice(2)] as Message[];
    assert.equal(ends.anchor(edited, 4, 2_100, '5m'), undefined);
    assert.equal(ends.lastSentAt, 3_000);
  });
});
