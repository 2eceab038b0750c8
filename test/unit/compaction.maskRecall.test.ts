import { strict as assert } from 'node:assert';
import { applyMask, maskCandidates, maskStub } from '../../src/core/compaction/mask';
import { isPlaceholder } from '../../src/core/conversation/resultPlaceholders';
import { RECALL_TOOL_NAME } from '../../src/core/recall/recallSpec';
import { runRecall } from '../../src/core/recall/recallTool';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';
import { Convo, layerCtx, lines, tokensOf } from './support/compactionBuilders';

describe('masking: the stub and the way back', () => {
  it('a stub is short, names the call, and the recall tool it names reads the cleared result back from the record', () => {
    const convo = new Convo()
      .user('read both')
      .read('src/a.ts', `${lines(100)}\nexport const NEEDLE_7f3a = 1;`)
      .read('src/b.ts', lines(100))
      .say('done');
    const state = convo.state();
    const r = applyMask(state, layerCtx(0.8), maskCandidates(state.messages, 3, tokensOf));
    assert.ok(r.record);
    const results = r.state.messages.flatMap((m) => m.blocks.flatMap((b) => (b.type === 'tool_result' ? [b] : [])));
    const stub = results.find((b) => isPlaceholder(b.content))?.content;
    assert.ok(typeof stub === 'string' && stub.includes('src/a.ts'), String(stub));
    assert.ok(stub.includes(`\`${RECALL_TOOL_NAME}\` can read it back, or run the tool again`), stub);
    assert.ok(!stub.includes('NEEDLE_7f3a'), 'the content itself is gone from the conversation');
    // The tool the stub names finds it in the mask's record.
    const found = runRecall({ query: 'NEEDLE_7f3a' }, { compactions: [{ record: r.record }], spills: [] });
    assert.match(found.text, /NEEDLE_7f3a/);
    assert.match(found.text, /^1 match for "NEEDLE_7f3a"/);
    // Every masked result carries a stub until a summary takes it: it stays small.
    const tokens = createTiktokenTokenizer().count(maskStub('read_file src/compaction/plan.ts', 1234, false));
    assert.ok(tokens <= 40, `${tokens} tokens`);
  });
});
