import { strict as assert } from 'node:assert';
import { ModelLimitsCache } from '../../src/host/anthropic/modelLimitsCache';

describe('the Models API limits cache', () => {
  it('keeps what each endpoint said apart: a proxy’s figures are not used after the base URL changes (issue 34 #6)', async () => {
    const cache = new ModelLimitsCache();
    let resolved = 0;
    const fetched: string[] = [];
    const answer = (maxInputTokens: number) => async (id: string) => {
      fetched.push(id);
      return { ok: true as const, limits: { id, maxInputTokens } };
    };
    cache.ensure('claude-x', 'http://proxy.example', answer(1_500_000), () => resolved++);
    cache.ensure('claude-x', 'http://proxy.example', answer(9), () => resolved++);
    await new Promise((r) => setImmediate(r));
    assert.equal(cache.get('claude-x', 'http://proxy.example')?.maxInputTokens, 1_500_000);
    assert.equal(cache.get('claude-x', ''), undefined, "Anthropic's API has not been asked");
    cache.ensure('claude-x', '', answer(200_000));
    await new Promise((r) => setImmediate(r));
    assert.equal(cache.get('claude-x', '')?.maxInputTokens, 200_000);
    assert.deepEqual([fetched.length, resolved], [2, 1], 'once per endpoint and model');
  });
});
