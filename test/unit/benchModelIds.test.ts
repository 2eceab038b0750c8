import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { policy } from '../../bench/policies';
import { prepareTranscript, replay } from '../../bench/replayCore';
import { parseTranscript } from '../../bench/transcript';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';
import { fixtureTranscripts } from './support/benchTranscripts';

/**
 * A real session logged through Amazon Bedrock, Vertex AI or OpenRouter names its model the
 * platform's way. Replayed, it is the same session: every request valid (the fake API knows
 * only the API's ids) and priced as that model. Before the ids were read back, all 431
 * requests of the Sonnet session so renamed were refused.
 */
describe("bench replay: a session logged with another platform's model ids", function () {
  this.timeout(120_000);
  const tokenizer = createTiktokenTokenizer();
  const file = fixtureTranscripts().find((f) => f.includes('sonnet45')) ?? '';
  const text = readFileSync(file, 'utf8');
  const run = async (name: string, source: string) => {
    const t = prepareTranscript(name, parseTranscript(source, name), tokenizer);
    return replay(t, { window: 100_000, policy: policy('default') });
  };
  const rename = (to: (model: string) => string) =>
    text.replace(/"model": *"(claude-[^"]+)"/g, (_, model: string) => `"model": "${to(model)}"`);

  it('replays Bedrock, Vertex AI and OpenRouter ids as the API ids: no refused request, the same cost', async () => {
    const original = await run('api ids', text);
    assert.equal(original.invalidCount, 0);
    for (const [platform, to] of [
      ['Bedrock', (m: string) => `us.anthropic.${m}-v1:0`],
      ['Vertex AI', (m: string) => `${m}@20250929`],
      ['OpenRouter', (m: string) => `anthropic/${m.replace(/(\d)-(\d)$/, '$1.$2')}`],
    ] as const) {
      const renamed = rename(to);
      assert.notEqual(renamed, text, platform);
      const r = await run(platform, renamed);
      assert.equal(r.invalidCount, 0, `${platform}: ${[...r.invalid.keys()].join('; ')}`);
      assert.equal(r.cost.total(), original.cost.total(), platform);
    }
  });
});
