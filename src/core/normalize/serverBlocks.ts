/**
 * Repairs of the API's server tool blocks (ServerToolBlock), each named:
 *
 * - a server tool block not of a shape the API returns is left out (`server_tool_unpaired`;
 *   one outside an assistant message is left out by the shared wrong-role rule, repairRules.ts);
 * - a `server_tool_use` without its result in the same assistant message, or a result
 *   without its call, is left out with its partner (`server_tool_unpaired`): the API runs the
 *   server tool within the answer, so both always come together, and a lone half is refused;
 * - a `tool_reference` to a tool that is not a deferred tool of the request is left out of its
 *   result (`tool_reference_unresolved`): the API refuses it ("Tool reference 'x' has no
 *   corresponding tool definition", SDK `ToolReferenceUnresolvedError`,
 *   https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool, "Error
 *   handling") — an MCP server was removed, or its tools are now loaded eagerly.
 *
 * Pure; a request without server tool blocks costs one memoised scan per message.
 */
import type { Block, Message, ServerToolBlock, ToolSchema } from '../conversation/conversationModel';
import {
  isServerCall,
  isServerToolRaw,
  keepReferences,
  serverCallId,
  toolReferences,
} from '../conversation/serverTools';
import { NO_REPAIRS, type Repair } from './repairs';
import { hasLoneSurrogate, replaceLoneSurrogatesDeep } from './surrogates';

type Note = (kind: Repair['kind'], detail: string) => void;

/** Whether a server tool block needs repair on its own (role, shape, lone surrogates). */
export function serverBlockNeedsRepair(b: ServerToolBlock, role: Message['role']): boolean {
  return role !== 'assistant' || !isServerToolRaw(b.raw) || replaceLoneSurrogatesDeep(b.raw) !== b.raw;
}

/**
 * The blocks a server tool block of an assistant message that needs repair becomes (none, or
 * the block with U+FFFD); one in a user message is the shared wrong-role rule's (repairRules.ts).
 */
export function repairServerBlock(b: ServerToolBlock, m: Message, note: Note): Block[] {
  const raw: unknown = b.raw;
  if (!isServerToolRaw(raw)) {
    note('server_tool_unpaired', `A malformed server tool block of message ${m.id} was left out.`);
    return [];
  }
  note('lone_surrogate', `Lone surrogates in a server tool block of message ${m.id} were replaced by U+FFFD.`);
  const { tokenCount: _memo, ...meta } = b.meta;
  return [{ ...b, raw: replaceLoneSurrogatesDeep(raw) as typeof raw, meta }];
}

/**
 * `blocks` without the server tool calls that have no result in them and the results that
 * have no call (each noted); the same array when every one is paired.
 */
export function pairServerBlocks(blocks: readonly Block[], m: Message, note: Note): readonly Block[] {
  if (!blocks.some((b) => b.type === 'server_tool')) return blocks;
  const calls = new Map<string, number>();
  const results = new Map<string, number>();
  for (const b of blocks) {
    if (b.type !== 'server_tool') continue;
    const side = isServerCall(b.raw) ? calls : results;
    const id = serverCallId(b.raw);
    side.set(id, (side.get(id) ?? 0) + 1);
  }
  const paired = (b: ServerToolBlock): boolean => {
    const id = serverCallId(b.raw);
    return id !== '' && calls.get(id) === 1 && results.get(id) === 1;
  };
  if (blocks.every((b) => b.type !== 'server_tool' || paired(b))) return blocks;
  return blocks.filter((b) => {
    if (b.type !== 'server_tool' || paired(b)) return true;
    const id = serverCallId(b.raw) || '(no id)';
    note(
      'server_tool_unpaired',
      isServerCall(b.raw)
        ? `The server tool call ${id} of message ${m.id} had no single result beside it and was left out.`
        : `The server tool result for ${id} of message ${m.id} had no single call beside it and was left out.`,
    );
    return false;
  });
}

/** Whether a message holds a tool search result (memoised per Message object). */
const holdsReferences = new WeakMap<Message, boolean>();
function hasReferences(m: Message): boolean {
  let hit = holdsReferences.get(m);
  if (hit === undefined) {
    hit = m.blocks.some((b) => b.type === 'server_tool' && toolReferences(b.raw).length > 0);
    holdsReferences.set(m, hit);
  }
  return hit;
}

/** Per message: the deferred tools it was resolved against, and the message sent (the same object each request). */
const resolved = new WeakMap<Message, { key: string; message: Message; repairs: readonly Repair[] }>();

/**
 * The messages with every `tool_reference` to a tool that is not deferred in `tools` left out
 * (the message copied, its other blocks the same objects); the same array when none is.
 */
export function resolveToolReferences(
  messages: readonly Message[],
  tools: readonly ToolSchema[],
): { readonly value: readonly Message[]; readonly repairs: readonly Repair[] } {
  if (!messages.some(hasReferences)) return { value: messages, repairs: NO_REPAIRS };
  const deferred = new Set(tools.filter((t) => t.deferLoading === true).map((t) => t.name));
  const key = [...deferred].join('\n');
  const repairs: Repair[] = [];
  const value = messages.map((m) => {
    if (!hasReferences(m)) return m;
    const hit = resolved.get(m);
    if (hit?.key === key) {
      repairs.push(...hit.repairs);
      return hit.message;
    }
    const own: Repair[] = [];
    let changed = false;
    const blocks = m.blocks.map((b) => {
      if (b.type !== 'server_tool') return b;
      const raw = keepReferences(b.raw, (name) => deferred.has(name));
      if (raw === b.raw) return b;
      changed = true;
      const gone = toolReferences(b.raw).filter((n) => !deferred.has(n));
      own.push({
        kind: 'tool_reference_unresolved',
        messageId: m.id,
        blockId: b.meta.id,
        detail: `The tool search result of message ${m.id} referred to ${gone.map((n) => JSON.stringify(hasLoneSurrogate(n) ? '?' : n)).join(', ')}, no longer a deferred tool of the request; the reference was left out.`,
      });
      const { tokenCount: _memo, ...meta } = b.meta;
      return { ...b, raw, meta };
    });
    const message = changed ? { ...m, blocks } : m;
    resolved.set(m, { key, message, repairs: own });
    repairs.push(...own);
    return message;
  });
  return repairs.length > 0 ? { value, repairs } : { value: messages, repairs: NO_REPAIRS };
}
