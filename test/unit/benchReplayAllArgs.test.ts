import { strict as assert } from 'node:assert';
import { parseReplayAllArgs, WINDOWS } from '../../bench/replayAll';

/** `npm run bench -- replay-all [dir] [--windows N,…]`: its arguments, and the errors that name what is wrong. */
describe('bench replay-all: arguments', () => {
  it('defaults to test/fixtures at 100k and 200k', () => {
    assert.deepEqual(parseReplayAllArgs([]), { dir: 'test/fixtures', windows: WINDOWS });
    assert.deepEqual(WINDOWS, [100_000, 200_000]);
  });

  it('takes a folder and a list of windows, in either order', () => {
    assert.deepEqual(parseReplayAllArgs(['sessions', '--windows', '100000,1_000_000']), {
      dir: 'sessions',
      windows: [100_000, 1_000_000],
    });
    assert.deepEqual(parseReplayAllArgs(['--windows', '64000', 'sessions']), { dir: 'sessions', windows: [64_000] });
  });

  it('refuses a bad window list, an unknown option and a second folder, saying which', () => {
    for (const [args, pattern] of [
      [['--windows'], /--windows takes whole token counts/],
      [['--windows', '100k'], /got "100k"/],
      [['--windows', '500'], /at least 1000/],
      [['--window', '100000'], /unknown option --window/],
      [['a', 'b'], /one folder only/],
    ] as const) {
      const r = parseReplayAllArgs(args);
      assert.ok('error' in r, JSON.stringify(args));
      assert.match(r.error, pattern);
    }
  });
});
