/**
 * A faithful local fake of the Anthropic Messages API for tests and demos: real HTTP and SSE,
 * strict request validation, a different tokenizer than the extension's, simulated prompt
 * caching, and a scriptable test model (`fake-claude`). See README.md in this folder.
 */
export { startFakeAnthropic, SUPPORTED_VERSIONS, type FakeAnthropic } from './server';
export type { FakeAnthropicOptions } from './state';
export type {
  AnswerStep,
  ApiErrorType,
  CacheStats,
  ErrorStep,
  FakeUsage,
  RecordedRequest,
  Rejection,
  ScriptStep,
  ScriptedToolUse,
  StepMatch,
  StopReason,
} from './types';
export { FAKE_MODEL, DEFAULT_WINDOW, minCacheableTokens, maxOutputTokens } from './models';
export { countTokens } from './tokenizer';
export { LOOKBACK_BLOCKS } from './promptCache';
export { parseSteps } from './script';
