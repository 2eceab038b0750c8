import { strict as assert } from 'node:assert';
import {
  checkRetention,
  containsWord,
  extractIdentifiers,
  isOwnName,
  lostIdentifiers,
  significantLoss,
} from '../../src/core/compaction/retention';
import type { RetentionCheck } from '../../src/core/compaction/types';
import { Convo } from './support/compactionFixtures';

function originals() {
  return new Convo().add({
    user: 'The login fails after 30 seconds on port 8080, see https://example.com/issues/42. Fix it in 2 steps.',
    tools: [
      {
        name: 'read_file',
        input: { path: 'src/auth/login.ts' },
        result:
          'export function validateToken(token) {\n  return jwt_decode(token);\n}\n// uses AuthService.refresh and ./config.json',
      },
      {
        name: 'run_command',
        input: { command: 'npm test' },
        result:
          'FAIL test/auth.test.ts\nTypeError: Cannot read properties of undefined (reading refresh)\n    at validateToken (src/auth/login.ts:2:10)',
        isError: true,
      },
    ],
    answer:
      'The crash comes from `AuthService.refresh` being undefined in validateToken; docs at https://jwt.io/introduction.',
  }).messages;
}

describe('retention check (summarise)', () => {
  it('finds paths, symbols, errors, URLs and the numbers the user gave', () => {
    const ids = extractIdentifiers(originals());
    assert.deepEqual([...ids.path.keys()].sort(), ['./config.json', 'src/auth/login.ts', 'test/auth.test.ts']);
    for (const s of ['validateToken', 'jwt_decode', 'AuthService.refresh']) assert.ok(ids.symbol.has(s), `symbol ${s}`);
    assert.ok(!ids.symbol.has('login'), 'plain words are not symbols');
    assert.deepEqual([...ids.url.keys()].sort(), ['https://example.com/issues/42', 'https://jwt.io/introduction']);
    assert.deepEqual(
      [...ids.number.keys()].sort(),
      ['30', '8080'],
      'numbers of two digits or more, from the user only, not inside URLs',
    );
    const errors = [...ids.error.keys()];
    assert.ok(errors.includes('TypeError: Cannot read properties of undefined (reading refresh)'), errors.join(' | '));
    assert.ok(errors.includes('FAIL test/auth.test.ts'));
    assert.ok(!errors.some((e) => e.startsWith('export function')), 'code lines are not errors');
    assert.equal(ids.path.get('src/auth/login.ts'), 2, 'mentions counted (a :line suffix is stripped)');
  });

  it('reports which identifiers the summary lost, most important first', () => {
    const summary =
      'Summary: `validateToken` in src/auth/login.ts crashes with a TypeError: cannot read properties of undefined (refresh). User gave port 8080.';
    const r = checkRetention(originals(), summary);
    assert.deepEqual(r.kinds.number, { found: 2, lost: ['30'] });
    assert.deepEqual([...r.kinds.url.lost].sort(), ['https://example.com/issues/42', 'https://jwt.io/introduction']);
    assert.deepEqual([...r.kinds.path.lost].sort(), ['./config.json', 'test/auth.test.ts']);
    assert.ok(!r.kinds.symbol.lost.includes('validateToken'));
    assert.ok(r.kinds.symbol.lost.includes('AuthService.refresh'));
    assert.ok(
      !r.kinds.error.lost.includes('TypeError: Cannot read properties of undefined (reading refresh)'),
      'a paraphrased error with its words counts as kept',
    );
    assert.equal(r.lost[0], '30', 'a lost user number comes first');
    const found = Object.values(r.kinds).reduce((n, k) => n + k.found, 0);
    const lost = Object.values(r.kinds).reduce((n, k) => n + k.lost.length, 0);
    assert.equal(r.retained, (found - lost) / found);
  });

  it('retains everything when the text is kept, and reports 1 when nothing was found', () => {
    const o = originals();
    const all = o
      .flatMap((m) =>
        m.blocks.map((b) =>
          b.type === 'text'
            ? b.text
            : b.type === 'tool_use'
              ? JSON.stringify(b.input)
              : b.type === 'tool_result'
                ? String(b.content)
                : '',
        ),
      )
      .join('\n');
    assert.equal(checkRetention(o, all).retained, 1);
    assert.deepEqual(checkRetention(o, all).lost, []);
    assert.equal(checkRetention(new Convo().add({ user: 'hi', answer: 'hello' }).messages, '').retained, 1);
  });

  it('matches whole words only', () => {
    assert.equal(containsWord('port 8080.', '8080'), true);
    assert.equal(containsWord('port 80800', '8080'), false);
    assert.equal(containsWord('myValidateToken', 'ValidateToken'), false);
  });

  it('ignores our own tag names and the field names of tool inputs', () => {
    const o = new Convo().add({
      user: 'Rename fetchUser',
      injected: '<ide_selection>\nconst x = fetchUser();\n</ide_selection>',
      tools: [
        {
          name: 'edit_file',
          input: { file_path: 'src/api/user.ts', old_string: 'fetchUser', new_string: 'loadUser', replace_all: true },
          result: 'Edited. <system-reminder>conversation_summary</system-reminder>',
        },
      ],
      answer: 'Done.',
    }).messages;
    const r = checkRetention(o, '');
    for (const own of [
      'ide_selection',
      'ide_opened_file',
      'system-reminder',
      'conversation_summary',
      'old_string',
      'new_string',
      'file_path',
      'replace_all',
    ])
      assert.ok(!r.lost.includes(own), `${own} counted as lost`);
    assert.ok(r.lost.includes('src/api/user.ts'), "a tool input's values still count");
    assert.ok(r.lost.includes('fetchUser') && r.lost.includes('loadUser'));
    assert.ok(isOwnName('/system-reminder') && !isOwnName('fetchUser'));
  });

  it('warns only on a significant loss: a number the user gave, or almost nothing of the originals kept', () => {
    const check = (retained: number, lost: string[], numbers: string[] = []): RetentionCheck => ({
      kinds: {
        number: { found: numbers.length, lost: numbers },
        error: { found: 0, lost: [] },
        path: { found: 0, lost: [] },
        url: { found: 0, lost: [] },
        symbol: { found: lost.length, lost },
      },
      lost: [...numbers, ...lost],
      retained,
    });
    const twelve = Array.from({ length: 12 }, (_, i) => `someSymbol${i}`);
    assert.equal(significantLoss(check(0.6, twelve)), false, 'an ordinary summary: 12 lost, most kept');
    assert.equal(significantLoss(check(0.95, [], ['8080'])), true, "the user's number");
    assert.equal(significantLoss(check(0.1, twelve)), true, 'almost nothing kept');
    assert.equal(significantLoss(check(0.1, ['oneSymbol', 'twoSymbol'])), false, 'too few to tell');
    const old = check(0.1, ['ide_selection', 'old_string', 'new_string', 'file_path', 'replace_all', 'fetchUser']);
    assert.deepEqual(lostIdentifiers(old), ['fetchUser'], "an old record's own names are left out");
    assert.equal(significantLoss(old), false);
  });
});
