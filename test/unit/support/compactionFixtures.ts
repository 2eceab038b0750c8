/** Fixtures of the summarisation tests: a conversation builder, a token counter, timeouts, options. */
import type {
  Block,
  BlockMeta,
  ConversationState,
  Message,
  TextBlock,
} from '../../../src/core/conversation/conversationModel';
import { counterIds, type IdSource } from '../../../src/core/platform/platformPorts';
import type { SummariseOptions } from '../../../src/core/compaction/summarise';
import type { CompactionRegion } from '../../../src/core/compaction/types';
import { emptyState, fakeClock } from './builders';
import { ScriptedLlm, type Step } from './scriptedLlm';

/** Tokens of a message: a quarter of its content's characters, plus 3 of framing. Deterministic. */
export function tokensOf(m: Message): number {
  let chars = 0;
  for (const b of m.blocks) {
    if (b.type === 'text' || b.type === 'summary') chars += b.text.length;
    else if (b.type === 'tool_use') chars += b.name.length + JSON.stringify(b.input).length + 40;
    else if (b.type === 'tool_result')
      chars += (typeof b.content === 'string' ? b.content.length : JSON.stringify(b.content).length) + 40;
    else if (b.type === 'thinking') chars += b.thinking.length;
    else chars += 1000;
  }
  return Math.ceil(chars / 4) + 3;
}

/** One tool call of a turn and its result. */
export interface ToolStep {
  readonly name: string;
  readonly input: unknown;
  readonly result: string;
  readonly isError?: boolean;
}

/** What one turn holds. */
export interface TurnSpec {
  readonly user: string;
  readonly tools?: readonly ToolStep[];
  readonly answer?: string;
  /** Pin the user's message (its words). */
  readonly pinned?: boolean;
  /** Injected context before the user's words. */
  readonly injected?: string;
  /** End the turn with this tool call; its result opens the next turn, before the user's words. */
  readonly callAtEnd?: ToolStep;
}

/** Builds a well-formed conversation turn by turn (user → [assistant tool_use → user tool_result]* → assistant). */
export class Convo {
  readonly ids: IdSource;
  readonly messages: Message[] = [];
  private turn = 0;
  private pendingResult: Block | undefined;
  constructor(tag = 'c') {
    this.ids = counterIds(tag);
  }

  private meta(source: BlockMeta['source'], extra: Partial<BlockMeta> = {}): BlockMeta {
    return {
      id: this.ids.next('blk'),
      tier: source === 'user' ? 1 : source === 'tool' ? 3 : 2,
      source,
      createdAt: 0,
      pinned: false,
      compactable: source !== 'user',
      ...extra,
    };
  }

  private text(text: string, source: BlockMeta['source'], pinned = false): TextBlock {
    return { type: 'text', text, meta: this.meta(source, { pinned }) };
  }

  /** Appends a whole turn. */
  add(spec: TurnSpec): this {
    this.turn++;
    const first: Block[] = this.pendingResult ? [this.pendingResult] : [];
    this.pendingResult = undefined;
    if (spec.injected) first.push(this.text(spec.injected, 'ide_selection'));
    first.push(this.text(spec.user, 'user', spec.pinned));
    this.push('user', first);
    for (const t of spec.tools ?? []) {
      const id = this.ids.next('toolu');
      this.push('assistant', [
        { type: 'tool_use', id, name: t.name, input: t.input, meta: this.meta('assistant', { toolUseId: id }) },
      ]);
      this.push('user', [
        {
          type: 'tool_result',
          toolUseId: id,
          content: t.result,
          ...(t.isError ? { isError: true } : {}),
          meta: this.meta('tool', { toolUseId: id }),
        },
      ]);
    }
    const last: Block[] = [this.text(spec.answer ?? `Done with turn ${this.turn}.`, 'assistant')];
    if (spec.callAtEnd) {
      const id = this.ids.next('toolu');
      last.push({
        type: 'tool_use',
        id,
        name: spec.callAtEnd.name,
        input: spec.callAtEnd.input,
        meta: this.meta('assistant', { toolUseId: id }),
      });
      this.pendingResult = {
        type: 'tool_result',
        toolUseId: id,
        content: spec.callAtEnd.result,
        meta: this.meta('tool', { toolUseId: id }),
      };
    }
    this.push('assistant', last);
    return this;
  }

  private push(role: Message['role'], blocks: Block[]): void {
    this.messages.push({ id: this.ids.next('msg'), role, blocks, turn: this.turn });
  }

  /** The conversation as a state. */
  state(overrides: Partial<ConversationState> = {}): ConversationState {
    return emptyState({ messages: [...this.messages], ...overrides });
  }
}

/** `n` turns of plain chat, each about `size` characters of answer. */
export function plainTurns(n: number, size = 400, tag = 'p'): Convo {
  const c = new Convo(tag);
  for (let i = 1; i <= n; i++)
    c.add({ user: `Request ${i}: please look at src/mod${i}/file${i}.ts`, answer: `Answer ${i}. ${'x'.repeat(size)}` });
  return c;
}

/** A timeout that never fires. */
export const neverTimeout = (): Promise<void> => new Promise<void>(() => undefined);

/** A timeout that fires at once. */
export const instantTimeout = (): Promise<void> => Promise.resolve();

/** A successful summariser step with the given text. */
export function answer(text: string, usage: { input_tokens?: number; output_tokens?: number } = {}): Step {
  return { content: [{ type: 'text', text }], usage };
}

/** Summarisation options with fakes; `regions` and overrides as given. */
export function summariseOpts(
  regions: readonly CompactionRegion[],
  llm: ScriptedLlm,
  over: Partial<SummariseOptions> = {},
): SummariseOptions {
  return {
    regions,
    trigger: 'manual',
    summariser: llm,
    summarizerModel: 'claude-haiku-4-5',
    contextWindow: 200_000,
    tokensOf,
    clock: fakeClock(),
    ids: counterIds('z'),
    timeout: neverTimeout,
    signal: new AbortController().signal,
    strategy: 'summarise',
    ...over,
  };
}

/** The text of the single user message of a summariser request. */
export function requestText(llm: ScriptedLlm, index: number): string {
  const req = llm.requests[index];
  const content = req?.messages[0]?.content;
  if (!Array.isArray(content)) throw new Error('no request');
  return content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}
