/**
 * The thinking rules of a request's history. (1) With `thinking: {type: 'enabled'}`, a request
 * that continues a tool-use turn (it ends with tool results) must send the assistant message
 * that made the calls starting with its thinking (or redacted_thinking) block — the API's
 * error when it does not is copied below. (2) The thinking blocks of the latest assistant
 * message must come back unmodified: a block whose signature this server minted
 * (`thinkingSignature`) must still carry the text it was minted for. Other signatures are only
 * checked for presence (they cannot be verified here). Sources: the extended-thinking guide
 * https://platform.claude.com/docs/en/build-with-claude/extended-thinking ("Preserving thinking
 * blocks") and the SDK's `ThinkingBlockParam` ("a modified block results in a 400").
 */
import { thinkingSignature } from './ids';
import { invalid, isObject } from './reject';
import { blocksOf, type ApiRequest } from './request';

/** A signature this server minted: the text's (`thinkingSignature`), alone or followed by a prefix digest (thinkingPrefix.ts). */
const MINTED = /^([A-Za-z0-9+/]{43}=)(?:[A-Za-z0-9+/]{43}=)?$/;

/** Throws the API's 400 when the history breaks a thinking rule. */
export function checkThinkingHistory(req: ApiRequest): void {
  const msgs = req.messages;
  const lastAssistant = msgs.map((m) => m.role).lastIndexOf('assistant');
  if (lastAssistant < 0) return;
  const blocks = blocksOf(msgs[lastAssistant] as (typeof msgs)[number]);
  blocks.forEach((b, j) => {
    const minted = b.type === 'thinking' ? MINTED.exec(b.signature) : null;
    if (b.type === 'thinking' && minted && minted[1] !== thinkingSignature(b.thinking)) {
      invalid(
        'thinking_modified',
        `messages.${lastAssistant}.content.${j}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`,
      );
    }
  });
  const enabled = isObject(req.thinking) && req.thinking.type === 'enabled';
  const last = msgs.at(-1);
  const continuesTools =
    last?.role === 'user' && blocksOf(last).some((b) => b.type === 'tool_result') && lastAssistant === msgs.length - 2;
  const first = blocks[0];
  if (enabled && continuesTools && first && first.type !== 'thinking' && first.type !== 'redacted_thinking') {
    invalid(
      'thinking_required',
      `messages.${lastAssistant}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
    );
  }
}
