import { strict as assert } from 'node:assert';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic';
import { compactionSignature, ON_DEMAND_BETA } from '../fake-anthropic/compactionRequest';
import { clientFor, rawPost } from '../fake-anthropic/testkit';

/** A compaction request body (without its beta header: give it per test). */
function body(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'claude-opus-4-6',
    max_tokens: 1024,
    messages: [
      { role: 'user', content: 'Name the entities of a recipe app.' },
      { role: 'assistant', content: 'Recipe, Ingredient and Step.' },
    ],
    compaction: { type: 'summarize' },
    ...over,
  };
}

const beta = { 'anthropic-beta': ON_DEMAND_BETA };

/** The block a compaction request returns for `content`, as a later request sends it back first. */
function block(content: string, signature = compactionSignature(content)) {
  return { type: 'compaction', content, encrypted_content: null, signature };
}

describe('fake server: compaction on demand (compaction: {type: "summarize"})', () => {
  let fake: FakeAnthropic;
  before(async () => {
    fake = await startFakeAnthropic();
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  const refusedFor = async (b: unknown, headers: Record<string, string | null> = beta): Promise<string | undefined> => {
    const r = await rawPost(fake, '/v1/messages', b, headers);
    assert.equal(r.status, 400, JSON.stringify(r.json));
    return fake.requests.at(-1)?.error?.rule;
  };

  it('answers with the signed block alone, stop reason compaction, the summary billed as output', async () => {
    fake.script({ compaction: { summary: 'Entities: Recipe, Ingredient, Step.' } });
    const r = await rawPost(fake, '/v1/messages', body(), beta);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const msg = r.json as { content: unknown[]; stop_reason: string; usage: { output_tokens: number } };
    assert.equal(msg.stop_reason, 'compaction');
    assert.deepEqual(msg.content, [block('Entities: Recipe, Ingredient, Step.')]);
    assert.ok(msg.usage.output_tokens > 0);
  });

  it('streams it through the SDK: the signature arrives with the block', async () => {
    const client = clientFor(fake);
    const stream = client.beta.messages.stream({ ...body(), betas: [ON_DEMAND_BETA] } as never);
    const final = await stream.finalMessage();
    assert.equal(final.stop_reason, 'compaction');
    const b = final.content[0] as { type: string; content: string; signature: string };
    assert.equal(b.type, 'compaction');
    assert.equal(b.signature, compactionSignature(b.content));
    assert.match(b.content, /compacted on demand/);
  });

  it('refuses it without the beta, with context_management, on a model without it, on an unfinished turn', async () => {
    assert.equal(await refusedFor(body(), {}), 'beta_required');
    assert.equal(
      await refusedFor(body({ context_management: { edits: [] } }), {
        'anthropic-beta': `${ON_DEMAND_BETA},context-management-2025-06-27`,
      }),
      'compaction_with_context_management',
    );
    assert.equal(await refusedFor(body({ model: 'claude-haiku-4-5' })), 'compaction_unsupported_model');
    const unfinished = body({
      messages: [
        { role: 'user', content: 'Read a.ts' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: {} }] },
      ],
    });
    assert.equal(await refusedFor(unfinished), 'compaction_incomplete_turn');
    assert.equal(await refusedFor(body({ compaction: { type: 'auto' } })), 'compaction');
  });

  it('a compaction request may end on a finished assistant turn (no prefill refusal); an ordinary one may not', async () => {
    assert.equal((await rawPost(fake, '/v1/messages', body(), beta)).status, 200);
    assert.equal(await refusedFor(body({ compaction: undefined })), 'prefill_unsupported');
  });

  it('takes the block back first, under the beta; refuses it misplaced, changed, doubled or without the beta', async () => {
    const first = block('Entities: Recipe, Ingredient, Step.');
    const next = (messages: unknown[]) => ({ model: 'claude-opus-4-6', max_tokens: 256, messages });
    const ok = await rawPost(
      fake,
      '/v1/messages',
      next([
        { role: 'assistant', content: [first] },
        { role: 'user', content: 'Add a Tag entity.' },
      ]),
      beta,
    );
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    assert.equal(
      await refusedFor(
        next([
          { role: 'assistant', content: [first] },
          { role: 'user', content: 'Add a Tag entity.' },
        ]),
        {},
      ),
      'beta_required',
    );
    assert.equal(
      await refusedFor(
        next([
          { role: 'user', content: 'Hello' },
          { role: 'assistant', content: [first] },
          { role: 'user', content: 'Add a Tag entity.' },
        ]),
      ),
      'compaction_block_misplaced',
    );
    assert.equal(
      await refusedFor(
        next([
          { role: 'assistant', content: [{ ...first, content: 'Entities: Recipe only.' }] },
          { role: 'user', content: 'Add a Tag entity.' },
        ]),
      ),
      'compaction_content_mismatch',
    );
    assert.equal(
      await refusedFor(
        next([
          { role: 'assistant', content: [first, block('Another summary.')] },
          { role: 'user', content: 'Add a Tag entity.' },
        ]),
      ),
      'compaction_block_misplaced',
    );
    assert.equal(
      await refusedFor(
        next([
          { role: 'assistant', content: [first] },
          { role: 'user', content: 'Go on.' },
          {
            role: 'assistant',
            content: [{ type: 'compaction', content: 'A threshold summary.', encrypted_content: 'e' }],
          },
          { role: 'user', content: 'Add a Tag entity.' },
        ]),
        { 'anthropic-beta': `${ON_DEMAND_BETA},compact-2026-01-12` },
      ),
      'compaction_block_ambiguous',
    );
  });

  it('count_tokens accepts compaction and ignores it', async () => {
    const r = await rawPost(fake, '/v1/messages/count_tokens', { ...body(), max_tokens: undefined }, {});
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.ok((r.json as { input_tokens: number }).input_tokens > 0);
  });
});
