/**
 * The Compactions view's plain words and shape (src/host/compactionRowText.ts,
 * src/host/recordDocument.ts): what stands in place of the originals named plainly, a turn's
 * automatic compactions grouped under it, and the read-only documents' readable tab titles.
 */
import { strict as assert } from 'node:assert';
import type { CompactionEntryState } from '../../src/core/agent/agentSession';
import type { CompactionRecord } from '../../src/core/compaction/types';
import type { Message } from '../../src/core/conversation/conversationModel';
import {
  compactionTurn,
  groupCompactions,
  REPLACEMENT_LABEL,
  replacementTitle,
  turnGroupDescription,
  turnGroupLabel,
  turnGroupSaved,
} from '../../src/host/compactionRowText';
import { parseRecordDocument, recordDocumentUri } from '../../src/host/recordDocument';
import { Build } from './support/builders';

function record(id: string, over: Partial<CompactionRecord> = {}): CompactionRecord {
  return {
    id,
    at: 1000,
    trigger: 'auto-soft',
    layer: 'mask',
    strategy: 'summarise',
    regions: [],
    originals: [],
    replacement: [],
    tokensBefore: 100,
    tokensAfter: 50,
    costUsd: 0,
    durationMs: 0,
    fallbacks: [],
    ...over,
  };
}
const entry = (r: CompactionRecord): CompactionEntryState => ({ record: r, active: true });

describe('Compactions view: plain labels, turn groups and document titles', () => {
  it('names what stands in place of the originals plainly, never by the layer id', () => {
    assert.equal(REPLACEMENT_LABEL.summarise, 'Summary');
    assert.equal(REPLACEMENT_LABEL.mask, 'Tool results cleared');
    for (const [layer, label] of Object.entries(REPLACEMENT_LABEL))
      assert.ok(/^[A-Z][a-z]+( [a-zA-Z()]+)*$/.test(label) && !label.toLowerCase().includes(layer), label);
    const region = { messageIds: [], tokens: 1 };
    const summary = record('c1', {
      layer: 'summarise',
      regions: [
        { ...region, firstTurn: 1, lastTurn: 1 },
        { ...region, firstTurn: 2, lastTurn: 4 },
      ],
    });
    assert.equal(replacementTitle(summary), 'Summary · turns 1–4');
    assert.equal(
      replacementTitle(record('c2', { regions: [{ ...region, firstTurn: 3, lastTurn: 3 }] })),
      'Tool results cleared · turn 3',
    );
    assert.equal(replacementTitle(record('c3')), 'Tool results cleared');
  });

  it('finds the turn a compaction ran in from the blocks created by its time', () => {
    const b = new Build('ct');
    const at = (t: number, m: Message): Message => ({
      ...m,
      blocks: m.blocks.map((x) => ({ ...x, meta: { ...x.meta, createdAt: t } })),
    });
    const turn1 = at(100, b.message('user', [b.text('one')], 1));
    const turn3 = at(900, b.message('user', [b.text('three')], 3));
    const turn4 = at(2000, b.message('user', [b.text('four')], 4));
    // Summarising turn 1 at the start of turn 3: turn 3's message was already there.
    assert.equal(compactionTurn(record('c', { at: 1000, originals: [turn1] }), [turn3, turn4]), 3);
    // No block says (a replayed session without times): the newest turn it replaced.
    const untimed = b.message('user', [b.text('two')], 2);
    assert.equal(compactionTurn(record('c', { at: 1000, originals: [untimed] }), []), 2);
  });

  it('groups the automatic compactions of one turn under it, newest first; manual and lone ones stay on top', () => {
    const turns: Record<string, number> = { a: 2, b: 3, m: 3, c: 3, d: 3, e: 4 };
    const entries = [
      entry(record('a')),
      entry(record('b', { trigger: 'auto-hard' })),
      entry(record('m', { trigger: 'manual', layer: 'summarise' })),
      entry(record('c', { trigger: 'tool-result' })),
      entry(record('d')),
      entry(record('e')),
    ];
    const groups = groupCompactions(entries, (r) => turns[r.id] ?? 0);
    assert.deepEqual(
      groups.map((g) =>
        g.kind === 'compaction' ? g.entry.record.id : `turn ${g.turn}: ${g.entries.map((e) => e.record.id).join(',')}`,
      ),
      ['e', 'turn 3: d,c,b', 'm', 'a'],
    );
    assert.equal(turnGroupLabel(3, 4), 'Turn 3 · 4 automatic compactions');
  });

  it('describes a group by what its compactions did, and sums the tokens they took out', () => {
    const r = (id: string, layer: CompactionRecord['layer'], tokensBefore: number, tokensAfter: number) =>
      entry(record(id, { layer, tokensBefore, tokensAfter }));
    const masks = [r('a', 'mask', 15_000, 9_000), r('b', 'mask', 14_000, 9_500)];
    assert.equal(turnGroupDescription(masks), 'results cleared');
    assert.equal(
      turnGroupDescription([r('s', 'summarise', 12_000, 600), ...masks, r('c', 'mask', 13_000, 9_000)]),
      'results cleared ×3 · summary ×1',
    );
    assert.equal(turnGroupSaved([...masks, r('s', 'summarise', 12_000, 600)]), 6_000 + 4_500 + 11_400);
  });

  it('gives each document a readable, unique path (the tab title) and finds it again from the URI', () => {
    const message = { recordId: 'cmp_1', what: 'message' as const, messageId: 'msg_7' };
    const uri = recordDocumentUri(message, 'Turn 2 · Read src/a.ts');
    assert.equal(uri.path, '/cmp_1/Turn 2 · Read src\u2215a.ts.md');
    assert.equal(uri.path.split('/').pop(), 'Turn 2 · Read src\u2215a.ts.md', 'the tab shows the whole title');
    assert.deepEqual(parseRecordDocument(uri.path, uri.query), message);
    const summary = recordDocumentUri({ recordId: 'cmp_1', what: 'summary' }, 'Summary · turns 1–2');
    assert.equal(summary.path, '/cmp_1/Summary · turns 1–2.md');
    assert.deepEqual(parseRecordDocument(summary.path, summary.query), { recordId: 'cmp_1', what: 'summary' });
    // The same title in another record is another document.
    assert.notEqual(recordDocumentUri({ ...message, recordId: 'cmp_2' }, 'Turn 2 · Read src/a.ts').path, uri.path);
    const long = recordDocumentUri(message, `Turn 2 · Run ${'x'.repeat(300)}\nmore`);
    assert.ok(long.path.length < 120 && !long.path.includes('\n'), long.path);
    assert.equal(parseRecordDocument('/cmp_1/x.md', 'other'), undefined);
  });
});
