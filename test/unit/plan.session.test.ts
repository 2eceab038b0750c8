import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentSession } from '../../src/core/agent/agentSession';
import { counterIds } from '../../src/core/platform/platformPorts';
import { encodeEntry, SESSION_VERSION } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { replaySession } from '../../src/core/session/replay';
import { loadSession } from '../../src/host/sessions/sessionLoader';
import { agentDeps } from './support/agentDeps';
import { Convo } from './support/compactionBuilders';
import { FakeTools, ScriptedLlm } from './support/scriptedLlm';
import { sampleHeader } from './support/sessionSamples';
import { withStorePort } from './support/storePort';

const ID = '2026-11-28T10-00-00-vfour1';
const meta = (id: string, source: string) =>
  `{"id":"${id}","tier":1,"source":"${source}","createdAt":1,"pinned":false,"compactable":${source !== 'user'}}`;

/** A session file as version 4 of the extension wrote it, byte for byte: a turn with a tool call. */
const V4_FILE = `${[
  `{"type":"header","format":"context-pipeline-session","version":4,"sessionId":"${ID}","createdAt":1700000000000,"model":"claude-sonnet-4-6","workspace":"demo"}`,
  `{"type":"message","at":1700000000100,"message":{"id":"m1","role":"user","turn":1,"blocks":[{"type":"text","text":"List the files","meta":${meta('b1', 'user')}}]}}`,
  `{"type":"message","at":1700000000200,"message":{"id":"m2","role":"assistant","turn":1,"blocks":[{"type":"tool_use","id":"toolu_1","name":"list_files","input":{},"meta":{"id":"b2","tier":2,"source":"assistant","createdAt":2,"effect":"list","pinned":false,"compactable":true}}]}}`,
  `{"type":"message","at":1700000000300,"message":{"id":"m3","role":"user","turn":1,"blocks":[{"type":"tool_result","toolUseId":"toolu_1","content":"a.ts","meta":${meta('b3', 'tool')}}]}}`,
  `{"type":"message","at":1700000000400,"message":{"id":"m4","role":"assistant","turn":1,"blocks":[{"type":"text","text":"One file: a.ts.","meta":${meta('b4', 'assistant')}}]}}`,
].join('\n')}\n`;

const PLAN = [
  { step: 'Read the code', status: 'completed' as const },
  { step: 'Write the tests', status: 'in_progress' as const, note: 'unit first' },
];

describe('the plan in the session file (version 5)', () => {
  let root: string;
  let file: string;
  beforeEach(async () => {
    root = await fsp.mkdtemp(join(tmpdir(), 'cp-plan-'));
    file = join(root, `${ID}.jsonl`);
  });
  afterEach(async () => {
    await fsp.rm(root, { recursive: true, force: true });
  });

  it('opens a literal version 4 file: saved again as version 12, the original backed up, no plan; a plan line then reads back', async () => {
    assert.equal(SESSION_VERSION, 12);
    await fsp.writeFile(file, V4_FILE);
    const r = await loadSession(file, { now: () => 1_800_000_000_000 });
    assert.ok(r.ok, r.ok ? '' : r.error);
    assert.deepEqual(r.report?.fixes, [
      'The session was saved in format version 4 by an earlier version of the extension; it was saved again in version 12.',
    ]);
    assert.deepEqual(r.report?.droppedLines, []);
    assert.deepEqual(
      r.session.messages.map((m) => m.id),
      ['m1', 'm2', 'm3', 'm4'],
    );
    assert.equal(r.session.plan, undefined);
    assert.ok(r.report?.backupPath);
    assert.equal(await fsp.readFile(r.report.backupPath, 'utf8'), V4_FILE);
    const lines = (await fsp.readFile(file, 'utf8')).trim().split('\n');
    assert.match(lines[0] ?? '', /"version":12/);

    await fsp.appendFile(
      file,
      `${encodeEntry({ type: 'plan', at: 1700000000500, steps: PLAN, toolUseId: 'toolu_p' })}\n`,
    );
    const again = await loadSession(file, { now: () => 1_800_000_000_001 });
    assert.ok(again.ok);
    assert.equal(again.report, undefined, 'a plan line is no damage');
    assert.deepEqual(again.session.plan, { steps: PLAN });
  });

  it('a plan line reads at version 5, and a version 4 line still reads as version 4', () => {
    const line = encodeEntry({ type: 'plan', at: 1, steps: PLAN });
    assert.ok(decodeLine(line).ok);
    assert.ok(decodeLine(V4_FILE.split('\n')[1] ?? '', 4).ok);
  });

  it('replays the last plan, a Clear (no steps) ends it, and a hand-made plan breaking the rules is left out with the reason', () => {
    const header = sampleHeader();
    const two = [
      { step: 'a', status: 'in_progress' as const },
      { step: 'b', status: 'in_progress' as const },
    ];
    const r = replaySession([header, { type: 'plan', at: 1, steps: PLAN }, { type: 'plan', at: 2, steps: two }]);
    assert.deepEqual(r.plan, { steps: PLAN }, 'the plan before the bad line stands');
    assert.deepEqual(r.ignored, [2]);
    assert.match(r.problems[0] ?? '', /^A saved plan was left out: steps 1, 2 are all in_progress/);
    assert.equal(
      replaySession([header, { type: 'plan', at: 1, steps: PLAN }, { type: 'plan', at: 2, steps: [] }]).plan,
      undefined,
    );
  });

  it('a damaged plan line (not a plan) is dropped by the loader and named; the session opens', async () => {
    const lines = V4_FILE.replace('"version":4', '"version":5').trim().split('\n');
    lines.push('{"type":"plan","at":5,"steps":[{"step":"x","status":"someday"}]}');
    lines.push(encodeEntry({ type: 'plan', at: 6, steps: [{ step: 'y'.repeat(500), status: 'pending' }] }));
    await fsp.writeFile(file, `${lines.join('\n')}\n`);
    const r = await loadSession(file, { now: () => 1_800_000_000_000 });
    assert.ok(r.ok, r.ok ? '' : r.error);
    assert.equal(r.session.plan, undefined);
    assert.equal(r.report?.droppedLines.length, 1);
    assert.match(r.report?.droppedLines[0]?.reason ?? '', /steps\.0\.status/);
    assert.ok(
      r.report?.fixes.some((f) => /A saved plan was left out: step 1 is 500 characters/.test(f)),
      JSON.stringify(r.report?.fixes),
    );
  });

  it("update_plan's plan and the user's Clear are written and restored on resume", async () => {
    await withStorePort('cp-plan-port-', Date.UTC(2026, 10, 28, 10, 0, 0), async (port, clock) => {
      const open = await port.create('claude-sonnet-4-6');
      const llm = new ScriptedLlm([
        { content: [{ type: 'tool_use', id: 'toolu_p1', name: 'update_plan', input: { steps: PLAN } }] },
        { content: [{ type: 'text', text: 'Planned.' }] },
      ]);
      const agent = new AgentSession(
        new Convo().state(),
        agentDeps({ llm, tools: new FakeTools({}), sink: open.sink, clock, ids: counterIds('s') }),
        () => undefined,
      );
      await agent.send('Add tests');
      await open.close();
      const again = await port.open(open.id);
      assert.ok(again.ok);
      assert.deepEqual(again.session.plan, { steps: PLAN });
      const resumed = new AgentSession(
        {
          ...new Convo().state(),
          messages: again.session.messages,
          ...(again.session.plan ? { plan: again.session.plan } : {}),
        },
        agentDeps({ llm, tools: new FakeTools({}), sink: again.session.sink, clock, ids: counterIds('t') }),
        () => undefined,
      );
      assert.deepEqual(resumed.plan, { steps: PLAN });
      assert.deepEqual(await resumed.clearPlan(), { ok: true });
      await again.session.close();
      const third = await port.open(open.id);
      assert.ok(third.ok);
      assert.equal(third.session.plan, undefined, 'the Clear was saved');
      await third.session.close();
    });
  });
});
