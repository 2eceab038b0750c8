import { strict as assert } from 'node:assert';
import { canonicalModelId } from '../../src/core/models/modelIds';

describe('model ids of other platforms, read as the API names them', () => {
  it('reads Bedrock, Vertex AI and OpenRouter ids as the Messages API ids', () => {
    const cases: Array<[string, string]> = [
      ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5-20250929'],
      ['anthropic.claude-opus-4-6-v1', 'claude-opus-4-6'],
      ['global.anthropic.claude-haiku-4-5-20251001-v1:0', 'claude-haiku-4-5-20251001'],
      ['claude-sonnet-4-5@20250929', 'claude-sonnet-4-5-20250929'],
      ['anthropic/claude-sonnet-4.5', 'claude-sonnet-4-5'],
      ['anthropic/claude-3.5-sonnet', 'claude-3-5-sonnet'],
    ];
    for (const [raw, id] of cases) assert.equal(canonicalModelId(raw), id, raw);
  });

  it('leaves API ids, and ids that are not Claude models, as they are', () => {
    for (const id of ['claude-sonnet-4-6', 'claude-opus-4-5-20251101', '<synthetic>', 'gpt-5', '', 'openai/gpt-4.1'])
      assert.equal(canonicalModelId(id), id, id);
  });
});
