import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { policy } from '../../bench/policies';
import { prepareTranscript, replay } from '../../bench/replayCore';
import { parseTranscript } from '../../bench/transcript';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';
import { fixtureTranscripts } from './support/benchTranscripts';

/**
 * The replay binds each answer's thinking to the request it answered, as the extension does,
 * so a session of a model that checks the prefix of its thinking (Fable 5.1 here: the pi
 * session's 182 signed thinking blocks, its model renamed) leaves out thinking only after a
 * compaction changed what came before it — never because the replay forgot to bind it.
 */
describe('bench replay: a session of a model with preserved thinking', function () {
  this.timeout(180_000);
  const tokenizer = createTiktokenTokenizer();
  const file = fixtureTranscripts().find((f) => f.includes('opus45-pi')) ?? '';
  const text = readFileSync(file, 'utf8').replace(/"model": *"(claude-[^"]+)"/g, '"model": "claude-fable-5-1"');
  const run = (window: number, name: 'baseline' | 'default') =>
    replay(prepareTranscript('pi as Fable 5.1', parseTranscript(text, 'pi as Fable 5.1'), tokenizer), {
      window,
      policy: policy(name),
    });

  it('sends all its thinking back while nothing is compacted, and only leaves out thinking after a compaction', async () => {
    const whole = await run(1_000_000, 'baseline');
    assert.equal(whole.compactions, 0);
    assert.equal(whole.invalidCount, 0);
    assert.equal(whole.repairs.get('thinking_unbound'), undefined, 'no request left thinking out');
    const compacted = await run(200_000, 'baseline');
    assert.equal(compacted.compactions, 1);
    assert.equal(compacted.invalidCount, 0);
    const first = Number(/request +(\d+):/.exec(compacted.log[0] ?? '')?.[1]);
    const left = compacted.repairs.get('thinking_unbound') ?? 0;
    assert.ok(left > 0 && left <= compacted.requests - first + 1, `${left} requests after the compaction at ${first}`);
  });
});
