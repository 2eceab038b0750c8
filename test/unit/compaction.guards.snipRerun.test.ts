import { strict as assert } from 'node:assert';
import { rerunPlaceholder, snip, snipAfterCompaction, stalePlaceholder } from '../../src/core/compaction/snip';
import type { ConversationState } from '../../src/core/conversation/conversationModel';
import { assertReversible, Convo, layerCtx, lines, results, testCompactor, text } from './support/compactionBuilders';
import { ScriptedLlm } from './support/scriptedLlm';

const output = (tag: string) => lines(40, 50, tag);
/** Three short results, so the ones before are older than the newest three (which snip never touches). */
const tail = (c: Convo) => c.user().call('s', {}, '1').call('s', {}, '2').call('s', {}, '3').say();

/**
 * Agents re-run their tests and `git status` as they work: on the replayed Claude Code sessions
 * 20–34 % of the tool results' text was superseded by the same call made later. The older
 * output is stale like a re-read file: snip clears it too.
 */
describe('compaction guards: snip of a command run again', () => {
  it('an older output of the same command (its description aside) becomes a placeholder naming the later turn', () => {
    const state = tail(
      new Convo()
        .user()
        .call('Bash', { command: 'npm test', description: 'Run the tests' }, output('t1'))
        .say()
        .user()
        .call('Bash', { description: 'Run the tests again', command: 'npm test' }, output('t2'))
        .say(),
    ).state();
    const r = snip(state, layerCtx(0.8));
    assertReversible(state, r, 'snip', 'budget');
    const [first, second] = results(r.state);
    assert.equal(text(first), rerunPlaceholder('Bash npm test', 2));
    assert.equal(
      text(first),
      '[Stale: Bash npm test was run again later (turn 2); this older output was removed to save context.]',
    );
    assert.equal(second, results(state)[1], 'the newer output is kept');
  });

  it('keeps an output whose re-run had other input or failed, an edit made twice and calls of other kinds', () => {
    const state = tail(
      new Convo()
        .user()
        .call('Bash', { command: 'npm test' }, output('a'))
        .call('Bash', { command: 'npm test -- --grep x' }, output('b'))
        .call('Bash', { command: 'npm run lint' }, output('c'))
        .call('Bash', { command: 'npm run lint' }, 'spawn failed', { isError: true })
        .call('edit_file', { path: 'a.ts', old_string: 'x', new_string: 'y' }, output('d'))
        .call('edit_file', { path: 'a.ts', old_string: 'x', new_string: 'y' }, output('e'))
        .call('recall', { query: 'auth' }, output('f'))
        .call('recall', { query: 'auth' }, output('g'))
        .say(),
    ).state();
    assert.equal(snip(state, layerCtx(0.9)).record, undefined);
  });
});

describe('compaction guards: snip riding along a compaction', () => {
  /** A re-read file and a re-run command in turn 1 (messages 1–8), then the same again in turn 2 (from message 10). */
  function twice(): ConversationState {
    const round = (c: Convo) =>
      c
        .user()
        .read('a.ts', output('a'))
        .read('a.ts', output('a'))
        .call('Bash', { command: 'git status' }, output('s'))
        .call('Bash', { command: 'git status' }, output('s'))
        .say();
    return tail(round(round(new Convo()))).state();
  }

  it('clears the stale results from the first message the compaction changed on, whatever the utilisation', () => {
    const before = twice();
    // A compaction that changed the message at index 10 (turn 2's words) and kept the rest.
    const at = 10;
    const after: ConversationState = {
      ...before,
      messages: before.messages.map((m, i) => (i >= at ? { ...m } : m)),
    };
    const r = snipAfterCompaction(before, after, layerCtx(0.1, { trigger: 'auto-soft' }));
    assertReversible(after, r, 'snip', 'auto-soft');
    const out = results(r.state);
    assert.equal(
      out[0],
      results(after)[0],
      'a stale read before the changed message stays (clearing it would rewrite more)',
    );
    assert.equal(out[2], results(after)[2], 'so does a stale output');
    assert.equal(text(out[4]), stalePlaceholder('a.ts', 2));
    assert.equal(text(out[6]), rerunPlaceholder('Bash git status', 2));
    assert.equal(snip(after, layerCtx(0.1)).record, undefined, 'on its own, snip waits for 60 %');
  });

  it('does nothing when the compaction changed nothing before the end', () => {
    const state = twice();
    const r = snipAfterCompaction(state, state, layerCtx(0.9));
    assert.equal(r.state, state);
    assert.equal(r.record, undefined);
  });
});

describe('the compactor clears stale results in what its compaction rewrites', () => {
  it('after a mask in a warm cache: the older output of a command run again in the kept tail', async () => {
    const c = new Convo().user();
    for (let i = 0; i < 20; i++) c.read(`src/f${i}.ts`, lines(60, 80, `f${i}`));
    c.call('Bash', { command: 'git status' }, output('s1')).call('Bash', { command: 'git status' }, output('s2'));
    const state = tail(c.say()).state({ contextWindow: 40_000, outputReserve: 4_000, keepRecentTokens: 2_000 });
    const run = await testCompactor(new ScriptedLlm([])).beforeRequest(state, { signal: new AbortController().signal });
    assert.deepEqual(
      run.records.map((r) => r.layer),
      ['mask', 'snip'],
    );
    const out = results(run.state);
    assert.equal(
      text(out[20]),
      rerunPlaceholder('Bash git status', 1),
      'in the kept tail, rewritten by the mask anyway',
    );
    assert.equal(out[21], results(state)[21], 'the newer output stays');
  });
});
