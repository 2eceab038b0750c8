import { strict as assert } from 'node:assert';
import { summaryParts } from '../../src/core/compaction/summaryParts';
import { IN_TURN_NOTE, USER_WORDS_NOTE, recallFooter, summaryText } from '../../src/core/compaction/summaryReplacement';
import type { SummaryBlock } from '../../src/core/conversation/conversationModel';
import { summaryItem } from '../../src/host/chat/transcript';
import { parseChatToWebview } from '../../src/protocol/chat';
import { lostSentence } from '../../src/webview/chat/summaryTitle';

const BODY =
  '## Goal\n\nFix the **login** timeout in `src/auth/login.ts`.\n\n- tried `validateToken`\n- next: run the tests';

/** A summary block's text as summarise.ts composes it: summaryText, then the recall footer. */
function composed(lost: readonly string[], opts: { leftOut?: string[]; inTurn?: boolean } = {}): string {
  const text = summaryText(3, 5, BODY, opts.leftOut ?? [], opts.inTurn ? 'before' : 'after', opts.inTurn ?? false);
  return `${text}\n\n${recallFooter('cmp-7', 3, 5, lost)}`;
}

function block(text: string): SummaryBlock {
  return {
    type: 'summary',
    text,
    compactionId: 'cmp-7',
    turnRange: [3, 5],
    meta: { id: 'blk-1', tier: 0, source: 'compactor', createdAt: 0, pinned: false, compactable: false },
  };
}

describe('summary card (what a person reads of a summary)', () => {
  it("keeps only the summariser's prose: no heading, notes, compaction id or recall footer", () => {
    const parts = summaryParts(composed(['handleRequest', 'src/a.ts']));
    assert.equal(parts.prose, BODY);
    for (const modelOnly of ['Summary of turns', 'cmp-7', 'recall', USER_WORDS_NOTE, 'Not carried'])
      assert.ok(!parts.prose.includes(modelOnly), `prose holds ${modelOnly}`);
    assert.deepEqual(parts.lost, ['handleRequest', 'src/a.ts']);
    assert.equal(parts.lostMore, 0);
  });

  it('takes out the in-turn notes and the left-out list, keeping the list for the details', () => {
    const parts = summaryParts(composed([], { inTurn: true, leftOut: ['turn 4: a 90k-token log'] }));
    assert.equal(parts.prose, BODY);
    assert.ok(!parts.prose.includes(IN_TURN_NOTE));
    assert.deepEqual(parts.leftOut, ['turn 4: a 90k-token log']);
    assert.deepEqual(parts.lost, []);
  });

  it('counts the identifiers beyond those the footer lists, and drops our own names from old footers', () => {
    const many = Array.from({ length: 25 }, (_, i) => `symbolNumber${i}`);
    const parts = summaryParts(composed(many));
    assert.equal(parts.lost.length, 20);
    assert.equal(parts.lostMore, 5);
    const old = summaryParts(composed(['ide_selection', 'old_string', 'file_path', 'fetchUser']));
    assert.deepEqual(old.lost, ['fetchUser']);
  });

  it('leaves a text without any of the parts as it is', () => {
    assert.equal(summaryParts('Just a summary.').prose, 'Just a summary.');
  });

  it('the host posts the prose and the lost identifiers, a valid chat item, the model text unchanged', () => {
    const text = composed(['fetchUser']);
    const b = block(text);
    const item = summaryItem(b);
    assert.equal(b.text, text, "the model's text is unchanged");
    assert.ok(item.kind === 'summary');
    assert.equal(item.text, BODY);
    assert.deepEqual(item.lost, ['fetchUser']);
    assert.ok(parseChatToWebview({ type: 'upsert', item }).ok);
  });

  it('says in words how many identifiers the summary does not carry', () => {
    assert.equal(lostSentence({ lost: [] }), '');
    assert.equal(
      lostSentence({ lost: ['a', 'b', 'c'] }),
      '3 identifiers from the originals are not in the summary: a, b, c. The model can still recall them.',
    );
    assert.match(lostSentence({ lost: ['a'], lostMore: 4 }), /^5 identifiers .*: a and 4 more\./);
    assert.match(lostSentence({ lost: ['a'] }), /^1 identifier from the originals is not/);
  });
});
