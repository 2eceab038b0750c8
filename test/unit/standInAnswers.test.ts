import { strict as assert } from 'node:assert';
import {
  isStandInAnswer,
  NO_ANSWER,
  STOPPED_BEFORE_ANSWER,
  STOPPED_SUFFIX,
  STOPPED_WHILE_TOOLS_RAN,
} from '../../src/core/normalize/standInAnswers';
import { transcriptOf } from '../../src/host/chat/transcript';
import { parseChatToWebview } from '../../src/protocol/chat';
import { Build } from './support/builders';

/** Answers the extension writes in Claude's place are shown as its notes, never as Claude's words. */
describe("stand-in answers (written in Claude's place)", () => {
  it('recognises the three whole notes, and nothing Claude said', () => {
    for (const note of [NO_ANSWER, STOPPED_BEFORE_ANSWER, STOPPED_WHILE_TOOLS_RAN])
      assert.equal(isStandInAnswer(note), true, note);
    assert.equal(isStandInAnswer(`Half an answer\n\n${STOPPED_SUFFIX}`), false, 'a stopped answer stays Claude’s');
    assert.equal(isStandInAnswer('[Not a note of ours.]'), false);
    assert.equal(isStandInAnswer(''), false);
  });

  it('the transcript marks them standIn, and the item passes the protocol check', () => {
    const b = new Build('s');
    const items = transcriptOf([
      b.message('user', [b.text('one')], 1),
      b.message('assistant', [b.text(NO_ANSWER, 'assistant')], 1),
      b.message('user', [b.text('two')], 2),
      b.message('assistant', [b.text('A real answer.', 'assistant')], 2),
    ]);
    const answers = items.flatMap((i) => (i.kind === 'assistant' ? [i] : []));
    assert.deepEqual(
      answers.map((a) => [a.text, a.standIn ?? false]),
      [
        [NO_ANSWER, true],
        ['A real answer.', false],
      ],
    );
    for (const item of items) assert.ok(parseChatToWebview({ type: 'upsert', item }).ok);
    assert.equal(parseChatToWebview({ type: 'upsert', item: { ...answers[0], standIn: 'yes' } }).ok, false);
  });
});
