import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { isBase64Text } from '../../src/protocol/validate';

describe('isBase64Text (the pasted image check, one pass)', () => {
  it('agrees with the base64 pattern on any short string', () => {
    const alphabet = fc.constantFrom(...'ABCXYZabcxyz0189+/=-_ .\n\u00e9'.split(''));
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 24 }), (chars) => {
        const s = chars.join('');
        assert.equal(isBase64Text(s), /^[A-Za-z0-9+/]+={0,2}$/.test(s), JSON.stringify(s));
      }),
      { numRuns: 3000 },
    );
  });

  it('answers on 5 MB strings, valid or spoiled at the very end', () => {
    const big = 'Ab9+/'.repeat(1024 * 1024);
    assert.equal(isBase64Text(big), true);
    assert.equal(isBase64Text(`${big}==`), true);
    assert.equal(isBase64Text(`${big}===`), false);
    assert.equal(isBase64Text(`${big}!`), false);
    assert.equal(isBase64Text('=='), false);
    assert.equal(isBase64Text(''), false);
  });
});
