import { strict as assert } from 'node:assert';
import type { ToolSchema } from '../../src/core/conversation/conversationModel';
import { toolBudget } from '../../src/core/pipeline/toolBudget';
import { toolsReport } from '../../src/host/budget/toolsReport';
import { parseBudgetToWebview } from '../../src/protocol/budget';
import { emptyState } from './support/builders';
import { initialCalibration } from '../../src/core/tokens/calibration';
import type { Tokenizer } from '../../src/core/platform/platformPorts';

const NO_CALIBRATION = initialCalibration();
const charTokenizer: Tokenizer = { name: 'chars', count: (t: string) => Math.ceil(t.length / 4) };

const schema = (name: string, description: string, extra: Partial<ToolSchema> = {}): ToolSchema => ({
  name,
  description,
  inputSchema: { type: 'object', properties: {} },
  ...extra,
});

describe('tools budget: definitions by source and by tool', () => {
  const tools = [
    schema('read_file', 'r'.repeat(400), { effect: 'read' }),
    schema('mcp__db__query', 'q'.repeat(800), { server: 'db', effect: 'external' }),
    schema('mcp__db__drop', 'd'.repeat(200), { server: 'db', deferLoading: true }),
  ];

  it('groups built-ins and each server, counting a deferred tool only as its would-be size', () => {
    const b = toolBudget(tools, charTokenizer, NO_CALIBRATION);
    assert.deepEqual(
      b.groups.map((g) => [g.server, g.tools.length]),
      [
        ['', 1],
        ['db', 2],
      ],
    );
    const db = b.groups[1];
    assert.ok(db && db.eagerTokens > db.tokens);
    assert.equal(db?.tokens, db?.tools.find((t) => t.name === 'mcp__db__query')?.tokens);
    assert.ok(b.searchTokens > 0, 'a deferred tool brings the tool search tool');
    assert.equal(b.tokens, b.groups.reduce((a, g) => a + g.tokens, 0) + b.searchTokens);
    assert.ok(b.eagerTokens > b.tokens);
  });

  it('the Tools card lists each server with its tool names and is a valid message', () => {
    const m = toolsReport({
      session: {
        state: emptyState({ tools }),
        tokenizer: charTokenizer,
        calibration: NO_CALIBRATION,
        promptTokens: 50_000,
      },
      statuses: [
        {
          name: 'db',
          source: 'workspace-vscode',
          transport: 'stdio',
          state: 'failed',
          message: 'exited with code 1',
          stderrTail: 'Error: no DATABASE_URL',
          toolCount: 0,
          stale: false,
          notices: [],
          disabledTools: ['drop'],
        },
      ],
      definitions: [],
      changePending: true,
    });
    assert.equal(m.search, 'server');
    assert.equal(m.groups[1]?.tools[0]?.description, 'q'.repeat(800), 'each tool with its whole description');
    // A pending change prices the cache rewrite: 50,000 tokens written at Sonnet 4.6's 5-minute rate ($3.75/MTok).
    assert.equal(m.cacheRewrite?.tokens, 50_000);
    assert.ok(Math.abs((m.cacheRewrite?.usd ?? 0) - 0.1875) < 1e-9, String(m.cacheRewrite?.usd));
    assert.deepEqual(m.servers[0]?.tools, ['drop']);
    assert.equal(m.servers[0]?.source, '.vscode/mcp.json');
    const parsed = parseBudgetToWebview(JSON.parse(JSON.stringify(m)));
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
  });
});
