import { resolveConfig } from '../../../src/core/pipeline/config';
import type {
  Block,
  ConversationState,
  Message,
  PipelineConfig,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from '../../../src/core/conversation/conversationModel';
import { counterIds, type Clock, type IdSource } from '../../../src/core/platform/platformPorts';

/** A fixed clock that advances only when told. */
export function fakeClock(start = 1_700_000_000_000): Clock & { advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

/** The default pipeline config (Sonnet 4.5, 200k), with overrides. */
export function testConfig(overrides: Partial<PipelineConfig> = {}): PipelineConfig {
  const r = resolveConfig({});
  if (!r.ok) throw new Error(r.error);
  return { ...r.config, ...overrides };
}

/** An empty conversation with an optional system prompt. */
export function emptyState(overrides: Partial<ConversationState> = {}): ConversationState {
  return { system: [], tools: [], messages: [], pending: [], config: testConfig(), ...overrides };
}

/** Builds blocks and messages with unique ids. */
export class Build {
  readonly ids: IdSource;
  constructor(tag = 't') {
    this.ids = counterIds(tag);
  }
  text(text: string, source: TextBlock['meta']['source'] = 'user'): TextBlock {
    return {
      type: 'text',
      text,
      meta: {
        id: this.ids.next('blk'),
        tier: source === 'user' ? 1 : 2,
        source,
        createdAt: 0,
        pinned: false,
        compactable: source !== 'user',
      },
    };
  }
  toolUse(name: string, input: unknown = {}): ToolUseBlock {
    const id = this.ids.next('toolu');
    return {
      type: 'tool_use',
      id,
      name,
      input,
      meta: {
        id: this.ids.next('blk'),
        tier: 2,
        source: 'assistant',
        createdAt: 0,
        toolUseId: id,
        pinned: false,
        compactable: true,
      },
    };
  }
  toolResult(toolUseId: string, content: string): ToolResultBlock {
    return {
      type: 'tool_result',
      toolUseId,
      content,
      meta: {
        id: this.ids.next('blk'),
        tier: 3,
        source: 'tool',
        createdAt: 0,
        toolUseId,
        pinned: false,
        compactable: true,
      },
    };
  }
  message(role: Message['role'], blocks: Block[], turn: number): Message {
    return { id: this.ids.next('msg'), role, blocks, turn };
  }
}
