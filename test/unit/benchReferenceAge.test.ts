import { strict as assert } from 'node:assert';
import { recentReferenceShare } from '../../bench/referenceAge';
import { assistant, at, prepare, usage, user, words } from './support/benchTranscripts';

/**
 * The recent-reference share (bench/referenceAge.ts): of the identifiers the next answers
 * referenced, those last mentioned within the newest `tail` tokens before their request.
 * Tokens are the word-counting tokenizer's (one a word), so distances are exact but for the
 * calibration, which a tail far from a message boundary does not feel.
 */
describe('bench: how recent the referenced identifiers are', () => {
  // loadTheme is mentioned, then 2,000 words, then parseConfig; the answer refers to both.
  const session = [
    user('loadTheme is broken'),
    user(words(2_000, 'filler')),
    user('and parseConfig too'),
    usage({ prompt: 2_100, read: 0, at: at(0) }),
    assistant('I will fix loadTheme and parseConfig.'),
  ];

  it('counts a reference as recent when its last mention ends within the tail', () => {
    const t = prepare(session);
    assert.equal(recentReferenceShare(t, 100), 0.5, 'parseConfig is recent, loadTheme 2,000 words back');
    assert.equal(recentReferenceShare(t, 10_000), 1, 'both within a tail longer than the session');
  });

  it('measures from the latest mention: an old identifier said again is recent', () => {
    const again = [...session.slice(0, 3), user('loadTheme again'), ...session.slice(3)];
    assert.equal(recentReferenceShare(prepare(again), 100), 1);
  });

  it('is null when the answers referenced nothing said before', () => {
    const t = prepare([user('hello'), usage({ prompt: 10, read: 0, at: at(0) }), assistant('Hi, newThing here.')]);
    assert.equal(recentReferenceShare(t, 100), null);
  });
});
