/**
 * Validates a request body the way the Messages API does, throwing a `RejectionError` with
 * the API's error for the first rule broken: strings that are not valid JSON (lone
 * surrogates, refused while parsing), top-level fields, then system, tools and
 * messages, then cache breakpoints, the model (404) and max_tokens against the model's limit.
 * The context-window checks, which need the token count, are `checkWindow`.
 */
import { checkDiagnostics } from './cacheDiagnostics';
import { checkBreakpoints, checkCacheControl } from './cacheControl';
import { isKnownModel, maxOutputTokens } from './models';
import { invalid, isObject, noExtraKeys, reject } from './reject';
import type { ApiRequest } from './request';
import { checkImageLimits } from './validateImages';
import { checkMessages } from './validateMessages';
import { checkWellFormedStrings } from './validateStrings';
import { checkThinkingPrefix } from './thinkingPrefix';
import { checkThinkingHistory } from './validateThinking';
import { checkSystem, checkToolChoice, checkTools } from './validateTools';
import { checkToolSearch } from './toolSearch';

/** The API route a body was sent to. */
export type Endpoint = 'messages' | 'count_tokens';

const COMMON_FIELDS = [
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'cache_control',
  'output_config',
  'speed',
  'mcp_servers',
  'context_management',
  'user_profile_id',
  // Compaction on demand (SDK `BetaCompactionConfig`): count_tokens "accepts this parameter and ignores it".
  'compaction',
];
const FIELDS: Record<Endpoint, ReadonlySet<string>> = {
  messages: new Set([
    ...COMMON_FIELDS,
    ...[
      'max_tokens',
      'stream',
      'metadata',
      'stop_sequences',
      'temperature',
      'top_p',
      'top_k',
      'service_tier',
      'container',
      'diagnostics',
      'inference_geo',
    ],
  ]),
  count_tokens: new Set([...COMMON_FIELDS, 'workspace_id']),
};

/** Returns the body as a typed request, or throws a `RejectionError`. */
export function validateRequest(body: unknown, endpoint: Endpoint): ApiRequest {
  checkWellFormedStrings(body);
  if (!isObject(body)) invalid('body', 'body: Input should be a valid dictionary');
  noExtraKeys(body, FIELDS[endpoint], '');
  if (body.model === undefined) invalid('model_required', 'model: Field required');
  if (typeof body.model !== 'string' || body.model.trim() === '')
    invalid('model_required', 'model: Input should be a valid string');
  if (endpoint === 'messages') checkMaxTokens(body.max_tokens);
  if (body.messages === undefined) invalid('messages_required', 'messages: Field required');
  if (!Array.isArray(body.messages)) invalid('messages_required', 'messages: Input should be a valid list');
  if (body.stream !== undefined && typeof body.stream !== 'boolean')
    invalid('stream', 'stream: Input should be a valid boolean');
  checkSystem(body.system);
  checkTools(body.tools);
  checkToolChoice(body.tool_choice, body.tools);
  checkThinking(body.thinking, body.max_tokens);
  checkMessages(body.messages, body.model, { compaction: body.compaction !== undefined && body.compaction !== null });
  checkToolSearch(body as unknown as ApiRequest);
  checkImageLimits(body.messages, body);
  checkCacheControl(body.cache_control, '');
  checkDiagnostics(body.diagnostics);
  const request = body as unknown as ApiRequest;
  checkBreakpoints(request);
  checkThinkingHistory(request);
  checkThinkingPrefix(request);
  if (!isKnownModel(body.model)) reject(404, 'not_found_error', 'model_not_found', `model: ${body.model}`);
  if (endpoint === 'messages' && typeof body.max_tokens === 'number') {
    const limit = maxOutputTokens(body.model);
    if (body.max_tokens > limit) {
      invalid(
        'max_tokens_limit',
        `max_tokens: ${body.max_tokens} > ${limit}, which is the maximum allowed number of output tokens for ${body.model}`,
      );
    }
  }
  return request;
}

function checkMaxTokens(v: unknown): void {
  if (v === undefined) invalid('max_tokens', 'max_tokens: Field required');
  if (typeof v !== 'number' || !Number.isInteger(v))
    invalid('max_tokens', 'max_tokens: Input should be a valid integer');
  if (v < 1) invalid('max_tokens', 'max_tokens: Input should be greater than or equal to 1');
}

function checkThinking(thinking: unknown, maxTokens: unknown): void {
  if (thinking === undefined) return;
  if (!isObject(thinking)) invalid('thinking', 'thinking: Input should be a valid dictionary');
  if (thinking.type === 'disabled') return;
  if (thinking.type === 'adaptive') {
    // Adaptive thinking has no budget: https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking
    if (thinking.budget_tokens !== undefined)
      invalid('thinking', 'thinking.adaptive.budget_tokens: Extra inputs are not permitted');
    return;
  }
  if (thinking.type !== 'enabled') {
    invalid(
      'thinking',
      `thinking: Input tag '${String(thinking.type)}' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'`,
    );
  }
  const budget = thinking.budget_tokens;
  if (typeof budget !== 'number' || !Number.isInteger(budget))
    invalid('thinking', 'thinking.enabled.budget_tokens: Field required');
  if (budget < 1024)
    invalid('thinking', 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
  if (typeof maxTokens === 'number' && maxTokens <= budget)
    invalid('thinking', '`max_tokens` must be greater than `thinking.budget_tokens`');
}

/**
 * The context-window rules, with the API's exact messages: the prompt alone must fit
 * (`prompt is too long`), and prompt + max_tokens must fit (`input length and max_tokens …`).
 */
export function checkWindow(inputTokens: number, maxTokens: number | undefined, window: number): void {
  if (inputTokens > window) invalid('prompt_too_long', `prompt is too long: ${inputTokens} tokens > ${window} maximum`);
  if (maxTokens !== undefined && inputTokens + maxTokens > window) {
    invalid(
      'context_limit',
      `input length and \`max_tokens\` exceed context limit: ${inputTokens} + ${maxTokens} > ${window}, decrease input length or \`max_tokens\` and try again`,
    );
  }
}
