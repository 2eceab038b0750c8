/**
 * Thinking blocks bound to the prefix they were produced after, for the models whose API checks
 * it (`checksThinkingPrefix`, with the docs it cites): a thinking block is valid only while the
 * system prompt, the tools, every earlier message and the blocks before it in its own message
 * are what they were when Claude produced it; otherwise that block and every later one are
 * refused (or silently dropped). Compaction edits history by design, so after any edit — a
 * summary, a masked result, a cut, a dropped message, a changed system prompt or tool list — the
 * thinking after the edit can no longer be sent.
 *
 * `bindThinking` records on each thinking block of a new answer a digest of the prefix the
 * answer was produced after (the normalized request as sent, then the answer's earlier blocks).
 * `dropUnboundThinking`, run on every request to such a model, recomputes the digest at each
 * thinking block and leaves out the first block whose digest differs (or that has none) and
 * every thinking block after it — the docs' own fix ("remove thinking from the kept turns").
 * The session keeps the blocks; only the request goes without them. Pure; each block's digest is
 * memoised on its (immutable) serialized param, so a request hashes only what is new.
 */
import type { ConversationState, Message, ThinkingBlock } from '../conversation/conversationModel';
import { checksThinkingPrefix } from '../models/preservedThinking';
import { isSendableThinking } from '../models/thinking';
import type { Repair } from '../normalize/repairs';
import { serializeMessage, serializeSystem, serializeTools } from './serialize';

const unitMemo = new WeakMap<object, string>();
const headMemo = new WeakMap<object, WeakMap<object, string>>();

/**
 * A 64-bit hash of `text` (an FNV-1a and a murmur-style mix, 32 bits each, over its UTF-16 code
 * units), as 16 hex digits.
 */
function hash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

function unitDigest(param: object): string {
  let d = unitMemo.get(param);
  if (d === undefined) {
    d = hash(JSON.stringify(param));
    unitMemo.set(param, d);
  }
  return d;
}

function chain(prev: string, unit: string): string {
  return hash(`${prev}|${unit}`);
}

/** The digest of what comes before the messages: the system prompt and the tools as sent. */
function headDigest(state: ConversationState): string {
  let bySystem = headMemo.get(state.system);
  if (!bySystem) headMemo.set(state.system, (bySystem = new WeakMap()));
  let d = bySystem.get(state.tools);
  if (d === undefined) {
    d = chain(hash(JSON.stringify(serializeSystem(state.system))), hash(JSON.stringify(serializeTools(state.tools))));
    bySystem.set(state.tools, d);
  }
  return d;
}

/**
 * Walks `message` from the prefix digest `before`: calls `visit` with each block and the digest
 * of everything before it, and returns the digest after the message. Blocks the serializer
 * leaves out (unsigned thinking) are visited with the digest unchanged.
 */
function walkMessage(message: Message, before: string, visit?: (index: number, digest: string) => void): string {
  const params = serializeMessage(message).content;
  let d = chain(before, `role:${message.role}`);
  if (typeof params === 'string') return chain(d, hash(params));
  let p = 0;
  message.blocks.forEach((b, i) => {
    visit?.(i, d);
    if (b.type === 'thinking' && !isSendableThinking(b)) return;
    const param = params[p++];
    if (param) d = chain(d, unitDigest(param));
  });
  // The serializer's placeholder for a message with nothing to send.
  for (; p < params.length; p++) d = chain(d, unitDigest(params[p] as object));
  return d;
}

/** What walking a message from a digest gave: the digest after it, and its first thinking block not bound to its prefix. */
interface Walked {
  readonly before: string;
  readonly after: string;
  readonly unbound: number | undefined;
}

const walkedMemo = new WeakMap<Message, Walked>();

/**
 * `walkMessage` from `before`, checking each sendable thinking block's binding; memoised per
 * (immutable) message and starting digest, so an unchanged history costs a lookup per message.
 */
function checkedWalk(message: Message, before: string): Walked {
  const hit = walkedMemo.get(message);
  if (hit?.before === before) return hit;
  let unbound: number | undefined;
  const after = walkMessage(message, before, (j, d) => {
    const b = message.blocks[j];
    if (unbound === undefined && b?.type === 'thinking' && isSendableThinking(b) && b.prefixDigest !== d) unbound = j;
  });
  const walked = { before, after, unbound };
  walkedMemo.set(message, walked);
  return walked;
}

/** The digest of a request's whole prefix: system, tools and every message of `sent` (the normalized state as sent). */
export function requestPrefixDigest(sent: ConversationState): string {
  let d = headDigest(sent);
  for (const m of sent.messages) d = checkedWalk(m, d).after;
  return d;
}

/**
 * `answer` with each thinking block bound to the prefix it was produced after: `prefix` (the
 * request's `requestPrefixDigest`) followed by the answer's earlier blocks. The same object
 * when the answer has no thinking.
 */
export function bindThinking(answer: Message, prefix: string): Message {
  if (!answer.blocks.some((b) => b.type === 'thinking')) return answer;
  const digests = new Map<number, string>();
  walkMessage(answer, prefix, (i, d) => digests.set(i, d));
  const blocks = answer.blocks.map((b, i) => {
    const d = digests.get(i);
    return b.type === 'thinking' && isSendableThinking(b) && d !== undefined ? { ...b, prefixDigest: d } : b;
  });
  return { ...answer, blocks };
}

/** What `dropUnboundThinking` returns: the state to send and one repair per block left out. */
export interface UnboundThinking {
  readonly state: ConversationState;
  readonly repairs: readonly Repair[];
}

/**
 * For a model that checks the prefix of thinking blocks: `state` without each thinking block
 * whose prefix, as this request sends it, is not the one it was produced after (or that was
 * never bound). The prefix is taken as sent: once a block is left out, a later block produced
 * after a request that already left it out is still bound and goes (the API checks each block
 * against the request it receives), while a block produced with it in its prefix is left out
 * too. Other models, and states whose thinking is all still bound, come back unchanged (the
 * same object).
 */
export function dropUnboundThinking(state: ConversationState): UnboundThinking {
  if (!checksThinkingPrefix(state.config.model)) return { state, repairs: [] };
  if (!state.messages.some((m) => m.blocks.some((b) => b.type === 'thinking' && isSendableThinking(b))))
    return { state, repairs: [] };
  let d = headDigest(state);
  const repairs: Repair[] = [];
  let changed = false;
  const messages = state.messages.map((m) => {
    let out = m;
    let walked = checkedWalk(out, d);
    // Each pass leaves out the first unbound block of what is left; the blocks after it are
    // checked again against the message without it.
    const left: number[] = [];
    while (walked.unbound !== undefined) {
      const block = out.blocks[walked.unbound] as ThinkingBlock;
      repairs.push(unboundRepair(m, block));
      left.push(m.blocks.indexOf(block));
      out = withoutThinkingAt(m, left);
      walked = checkedWalk(out, d);
    }
    if (out !== m) changed = true;
    d = walked.after;
    return out;
  });
  return changed ? { state: { ...state, messages }, repairs } : { state, repairs: [] };
}

const strippedMemo = new WeakMap<Message, Map<string, Message>>();

/**
 * `m` without the thinking blocks at `indices` (of `m`); memoised per message and index set,
 * so each request gets the same object back (the estimator's anchor, the serializer's memo
 * and the digests' memo compare messages by identity).
 */
function withoutThinkingAt(m: Message, indices: readonly number[]): Message {
  let byKey = strippedMemo.get(m);
  if (!byKey) strippedMemo.set(m, (byKey = new Map()));
  const key = indices.join(',');
  let out = byKey.get(key);
  if (!out) {
    const blocks = m.blocks.filter((_, j) => !indices.includes(j));
    out = { ...m, blocks };
    byKey.set(key, out);
  }
  return out;
}

function unboundRepair(m: Message, b: ThinkingBlock): Repair {
  return {
    kind: 'thinking_unbound',
    messageId: m.id,
    blockId: b.meta.id,
    detail: `A thinking block of message ${m.id} was left out: ${
      b.prefixDigest === undefined ? 'it was never bound to the context before it' : 'the context before it changed'
    } since it was produced, and the model refuses such thinking.`,
  };
}
