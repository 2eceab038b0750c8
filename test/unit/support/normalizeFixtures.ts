/** Builders for the normalize tests: blocks of every kind, and a request checked by the fake API's validator. */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type {
  Block,
  BlockMeta,
  ConversationState,
  ImageBlock,
  Message,
  SummaryBlock,
  ThinkingBlock,
} from '../../../src/core/conversation/conversationModel';
import { prepareRequest, type PreparedRequest } from '../../../src/core/pipeline/pipeline';
import { makeRequestCounter } from '../../../src/core/tokens/requestTokens';
import { TokenEstimator } from '../../../src/core/tokens/estimator';
import { validateRequest } from '../../fake-anthropic/validateRequest';
import { Build, emptyState, fakeClock } from './builders';
import { countingTokenizer } from './tokenFakes';

/** Block and message builders with unique ids, beyond `Build`'s text / tool_use / tool_result. */
export class NBuild extends Build {
  private turn = 1;
  meta(source: BlockMeta['source'] = 'assistant'): BlockMeta {
    return { id: this.ids.next('blk'), tier: 2, source, createdAt: 0, pinned: false, compactable: true };
  }
  thinking(thinking: string, signature?: string): ThinkingBlock {
    return { type: 'thinking', thinking, ...(signature !== undefined ? { signature } : {}), meta: this.meta() };
  }
  image(mediaType: string, data = 'iVBORw0KGgo='): ImageBlock {
    return { type: 'image', mediaType: mediaType as ImageBlock['mediaType'], data, meta: this.meta('user') };
  }
  summary(text: string): SummaryBlock {
    return {
      type: 'summary',
      text,
      compactionId: this.ids.next('cmp'),
      turnRange: [1, 2],
      meta: { ...this.meta('compactor'), compactable: false },
    };
  }
  user(...blocks: Block[]): Message {
    return this.message('user', blocks, this.turn++);
  }
  assistant(...blocks: Block[]): Message {
    return this.message('assistant', blocks, this.turn);
  }
}

/** A conversation state around `messages` (default config: Sonnet 4.6, which refuses a final assistant message). */
export function stateOf(messages: readonly Message[], overrides: Partial<ConversationState> = {}): ConversationState {
  return emptyState({ messages, ...overrides });
}

/** A request pipeline with a real estimator over a counting tokenizer. */
export function pipeline() {
  const tokenizer = countingTokenizer();
  const estimator = new TokenEstimator(tokenizer);
  const clock = fakeClock();
  const count = makeRequestCounter(estimator, tokenizer);
  return {
    tokenizer,
    estimator,
    clock,
    prepare: (s: ConversationState): PreparedRequest => prepareRequest(s, { count, clock }),
  };
}

/** Throws the fake API's error when `params` would be refused (after a JSON round trip, as sent). */
export function assertAccepted(params: MessageCreateParamsNonStreaming): void {
  validateRequest(JSON.parse(JSON.stringify(params)), 'messages');
}

/** The fake API's refusal message for `params`, or undefined when accepted. */
export function refusal(params: unknown): string | undefined {
  try {
    validateRequest(JSON.parse(JSON.stringify(params)), 'messages');
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
