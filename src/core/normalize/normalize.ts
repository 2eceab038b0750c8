/**
 * normalize: the last step before serialize. Turns ANY ConversationState into one whose
 * request the Messages API accepts, and says what it changed. It applies the rule set shared
 * with the session repair on load (repairRules.ts: wrong-role blocks, empty text and messages,
 * the leading and final message, merged runs, repeated tool ids, every tool_use answered —
 * `INTERRUPTED_CALL` when it is not — orphan and duplicate results as text, results first),
 * and the rules of the wire format only it applies:
 *
 * - lone UTF-16 surrogates become U+FFFD everywhere (system, tools, text, tool inputs at any
 *   depth, tool results); empty system blocks are left out; "Continue." follows a final
 *   assistant message, which Claude 4.6 models would refuse as a prefill;
 * - thinking without a signature is left out (as the serializer does; redacted thinking,
 *   which has data instead, is kept); invalid tool ids are rewritten; images of a media type
 *   the API does not take become a note, and so do images over the API's per-request image
 *   limits (more than 100, over 5 MB, too large on a side: imageLimits.ts).
 *
 * It works on a copy: the state passed in (the session's) is never changed, and a message or
 * block that needs nothing is passed through as the same object. A valid state is checked in
 * O(messages) with no allocation once its messages have been seen (each message is scanned
 * once, memoised), and comes back as the very same state; repaired messages are memoised too,
 * so the serializer's per-Message memo and the estimator's anchoring keep working.
 */
import type { ConversationState, Message, TextBlock, ToolSchema } from '../conversation/conversationModel';
import { scanMessage } from './blocks';
import { limitImages } from './imageLimits';
import { NO_REPAIRS, type Repair } from './repairs';
import { resolveToolReferences } from './serverBlocks';
import { repairStructure } from './structure';
import { opensWithOnDemandSummary } from '../conversation/assistant';
import { replaceLoneSurrogates, replaceLoneSurrogatesDeep } from './surrogates';

export { describeRepairs, NO_REPAIRS, type Repair, type RepairKind } from './repairs';
export { hasLoneSurrogate, replaceLoneSurrogates, replaceLoneSurrogatesDeep } from './surrogates';

/** A state ready to serialize, and what was repaired to get there (empty when nothing was). */
export interface Normalized {
  /** The input state itself when it was already valid. */
  readonly state: ConversationState;
  readonly repairs: readonly Repair[];
}

interface Fixed<T> {
  readonly value: T;
  readonly repairs: readonly Repair[];
}

const normalizedStates = new WeakMap<ConversationState, Normalized>();
const systems = new WeakMap<readonly TextBlock[], Fixed<readonly TextBlock[]>>();
const toolLists = new WeakMap<readonly ToolSchema[], Fixed<readonly ToolSchema[]>>();
const repairedLists = new WeakMap<readonly Message[], Fixed<readonly Message[]>>();
/** The last messages array found valid (held weakly), and the tool_use ids in it. */
let lastValid: WeakRef<readonly Message[]> | undefined;
const validIds = new Set<string>();
const NO_CALLS: readonly string[] = Object.freeze([]);

/** `state` made valid for the Messages API, with the repairs; see the module comment. Never mutates `state`. */
export function normalizeState(state: ConversationState): Normalized {
  const cached = normalizedStates.get(state);
  if (cached) return cached;
  const system = normalizeSystem(state.system);
  const tools = normalizeTools(state.tools);
  const valid = isValidSequence(state.messages);
  const repaired = valid ? { value: state.messages, repairs: NO_REPAIRS } : repairMessages(state.messages);
  const resolved = resolveToolReferences(repaired.value, tools.value);
  const limited = limitImages(resolved.value);
  if (limited.value === state.messages && system.value === state.system && tools.value === state.tools)
    return { state, repairs: NO_REPAIRS };
  const repairs = [...system.repairs, ...tools.repairs, ...repaired.repairs, ...resolved.repairs, ...limited.repairs];
  const out: Normalized = {
    state: { ...state, system: system.value, tools: tools.value, messages: limited.value },
    repairs,
  };
  normalizedStates.set(state, out);
  return out;
}

/**
 * The messages as they are sent: `messages` itself when already valid, else the repaired copy
 * (memoised per array). What the token estimator measures, so that its anchor and its
 * estimates refer to the same messages as the request.
 */
export function sentMessages(messages: readonly Message[]): readonly Message[] {
  return limitImages(isValidSequence(messages) ? messages : repairMessages(messages).value).value;
}

function repairMessages(messages: readonly Message[]): Fixed<readonly Message[]> {
  const hit = repairedLists.get(messages);
  if (hit) return hit;
  const repairs: Repair[] = [];
  const out = { value: repairStructure(messages, repairs), repairs };
  repairedLists.set(messages, out);
  return out;
}

/**
 * Whether `messages` already is a valid request: not empty, user first (or the block of a
 * compaction on demand) and last, roles
 * alternating, no block needing repair, tool_use ids unique, and each user message starting
 * with exactly one tool_result per tool_use of the message before (and no other).
 *
 * Incremental: the last array found valid is remembered (weakly) with its tool_use ids, and
 * an array that starts with the same message objects is checked only from where that one
 * ended — per turn, a pointer comparison per message plus the new messages. No allocation
 * beyond the new messages' first scan and the new tool ids.
 */
export function isValidSequence(messages: readonly Message[]): boolean {
  const n = messages.length;
  const first = messages[0];
  if (!first || (first.role !== 'user' && !opensWithOnDemandSummary(first)) || messages[n - 1]?.role !== 'user')
    return false;
  const from = validPrefixLength(messages);
  if (from === n) return true;
  if (from === 0) validIds.clear();
  if (checkFrom(messages, from)) {
    lastValid = new WeakRef(messages);
    return true;
  }
  lastValid = undefined;
  validIds.clear();
  return false;
}

/** Length of the last valid array when `messages` starts with its very messages (it ends with a user message), else 0. */
function validPrefixLength(messages: readonly Message[]): number {
  const prefix = lastValid?.deref();
  if (!prefix || prefix.length > messages.length) return 0;
  if (prefix === messages) return prefix.length;
  for (let i = prefix.length - 1; i >= 0; i--) if (prefix[i] !== messages[i]) return 0;
  return prefix.length;
}

/** Checks messages[from…] given a valid prefix before `from` whose tool_use ids are in `validIds`. */
function checkFrom(messages: readonly Message[], from: number): boolean {
  let calls: readonly string[] = NO_CALLS;
  for (let i = from; i < messages.length; i++) {
    const m = messages[i] as Message;
    const scan = scanMessage(m);
    if (scan.blocks !== m.blocks || m.blocks.length === 0) return false;
    if (i > 0 && (messages[i - 1] as Message).role === m.role) return false;
    if (m.role === 'assistant') {
      for (const id of scan.uses) {
        if (validIds.has(id)) return false;
        validIds.add(id);
      }
      calls = scan.uses;
      continue;
    }
    if (!scan.resultsFirst || scan.results.length !== calls.length) return false;
    for (let r = 0; r < scan.results.length; r++) {
      const id = scan.results[r] as string;
      if (!calls.includes(id) || scan.results.indexOf(id) !== r) return false;
    }
    calls = NO_CALLS;
  }
  return true;
}

function normalizeSystem(system: readonly TextBlock[]): Fixed<readonly TextBlock[]> {
  const hit = systems.get(system);
  if (hit) return hit;
  const repairs: Repair[] = [];
  const value: TextBlock[] = [];
  for (const b of system) {
    const text = replaceLoneSurrogates(b.text);
    if (text.trim().length === 0) {
      repairs.push({
        kind: 'empty_text_dropped',
        blockId: b.meta.id,
        detail: `An empty system block (${b.meta.source}) was left out.`,
      });
      continue;
    }
    if (text === b.text) {
      value.push(b);
      continue;
    }
    repairs.push({
      kind: 'lone_surrogate',
      blockId: b.meta.id,
      detail: 'Lone surrogates in the system prompt were replaced by U+FFFD.',
    });
    const { tokenCount: _memo, ...meta } = b.meta;
    value.push({ ...b, text, meta });
  }
  const fixed = { value: repairs.length === 0 ? system : value, repairs: repairs.length === 0 ? NO_REPAIRS : repairs };
  systems.set(system, fixed);
  return fixed;
}

function normalizeTools(tools: readonly ToolSchema[]): Fixed<readonly ToolSchema[]> {
  const hit = toolLists.get(tools);
  if (hit) return hit;
  const repairs: Repair[] = [];
  const value = tools.map((t) => {
    const fixed = replaceLoneSurrogatesDeep(t);
    if (fixed === t) return t;
    repairs.push({
      kind: 'lone_surrogate',
      detail: `Lone surrogates in the schema of the tool ${replaceLoneSurrogates(t.name)} were replaced by U+FFFD.`,
    });
    return fixed as ToolSchema;
  });
  const out = { value: repairs.length === 0 ? tools : value, repairs: repairs.length === 0 ? NO_REPAIRS : repairs };
  toolLists.set(tools, out);
  return out;
}
