/**
 * The anchored, calibrated prompt-size estimator.
 *
 * The API reports the exact prompt size of every request it answers (input + cache read +
 * cache creation tokens). The estimate of the next prompt is that figure — the anchor — plus
 * the calibrated raw count of what was added since; only new blocks are ever tokenised, and
 * their counts are memoised (blockTokens.ts). The calibration factor is learned from each
 * pair of consecutive reports (calibration.ts). When the prefix the anchor covered changed
 * (compaction replaced messages, the system prompt or tools changed), the estimate is rebased
 * — reported − calibrated(removed) + calibrated(added) — or, when that would be less certain
 * than a recount, a full calibrated count plus the learned overhead (what the API adds that
 * the messages do not show: its tool-use preamble, or in the bench the unseen system prompt).
 *
 * Thinking of earlier turns is not counted for models whose earlier-turn thinking the API
 * strips (`stripsEarlierThinking`, with the docs it cites): only the current turn's thinking
 * (a tool-use continuation) is; when a new turn starts, the previous turn's thinking that the
 * anchor's report included is taken off the estimate.
 *
 * Biased to over-estimate: every calibrated part that is not the reported anchor gets a
 * safety margin, and the result is rounded up.
 *
 * Cost: with an anchor, an estimate compares message identities up to the anchor (a pointer
 * comparison per message, no counting) and counts only messages after it. A small class,
 * no I/O; one instance per session and tokenizer.
 */
import type { Message, TextBlock, ToolSchema } from '../conversation/conversationModel';
import {
  type AnchorSource,
  type Estimate,
  type EstimateMode,
  type EstimatorOptions,
  MAX_SAFETY_MARGIN,
  MIN_SAFETY_MARGIN,
  type Observation,
  type PromptRequest,
  SPREAD_MARGIN_MULTIPLIER,
  TOOL_USE_PREAMBLE_TOKENS,
} from './estimate';
import { reportedPromptTokens, type ReportedUsage } from './promptTokens';
import { sentMessages } from '../normalize/normalize';
import type { Tokenizer } from '../platform/platformPorts';
import { stripsEarlierThinking } from '../models/thinking';
import {
  addTokens,
  messageRawTokens,
  referencedToolsRawTokens,
  messageThinkingRawTokens,
  NO_TOKENS,
  type RawTokens,
  subTokens,
  systemRawTokens,
  toolsRawTokens,
} from './blockTokens';
import {
  applyCalibration,
  calibrate,
  type Calibration,
  type CalibrationOptions,
  DEFAULT_CALIBRATION_OPTIONS,
  initialCalibration,
} from './calibration';

export type { AnchorSource, Estimate, EstimateMode, EstimatorOptions, Observation, PromptRequest } from './estimate';
export { MAX_SAFETY_MARGIN, MIN_SAFETY_MARGIN, SPREAD_MARGIN_MULTIPLIER, TOOL_USE_PREAMBLE_TOKENS } from './estimate';

interface Anchor {
  readonly system: readonly TextBlock[];
  readonly tools: readonly ToolSchema[];
  readonly messages: readonly Message[];
  readonly systemRaw: RawTokens;
  readonly toolsRaw: RawTokens;
  /** Raw total of system + tools + messages. */
  readonly raw: RawTokens;
  readonly reported: number;
  readonly source: AnchorSource;
}

interface Diff {
  /** Whether anything the anchor covered is gone (messages, system or tools replaced). */
  readonly prefixChanged: boolean;
  readonly removed: RawTokens;
  readonly added: RawTokens;
  readonly total: RawTokens;
}

/** The turn of the last message (0 when none). */
function lastTurn(messages: readonly Message[]): number {
  return messages.at(-1)?.turn ?? 0;
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * `request` with its messages as normalize sends them (the same object when they need no
 * repair): estimates and the anchor then compare the messages actually sent, so a repaired
 * conversation stays anchored (its repaired messages are memoised, the same objects each turn).
 */
function asSent(request: PromptRequest): PromptRequest {
  const messages = sentMessages(request.messages);
  return messages === request.messages ? request : { system: request.system, tools: request.tools, messages };
}

/** Anchored, calibrated estimator of prompt sizes. See the module comment. */
export class TokenEstimator {
  private options: CalibrationOptions;
  private model: string | undefined;
  private readonly fixedMargin: number | undefined;
  private readonly coldOverhead: (tools: readonly ToolSchema[]) => number;
  private cal: Calibration;
  private anchor: Anchor | undefined;
  private overhead: number | undefined;

  constructor(
    private readonly tokenizer: Tokenizer,
    options: EstimatorOptions = {},
  ) {
    this.options = { ...DEFAULT_CALIBRATION_OPTIONS, ...options.calibration };
    this.fixedMargin = options.safetyMargin;
    this.coldOverhead = options.coldOverhead ?? ((tools) => (tools.length > 0 ? TOOL_USE_PREAMBLE_TOKENS : 0));
    this.cal = initialCalibration(this.options);
  }

  /** The current calibration (factor and evidence). */
  get calibration(): Calibration {
    return this.cal;
  }

  /** The fraction currently added to calibrated parts of an estimate (see `EstimatorOptions.safetyMargin`). */
  get margin(): number {
    return (
      this.fixedMargin ??
      Math.min(MAX_SAFETY_MARGIN, Math.max(MIN_SAFETY_MARGIN, SPREAD_MARGIN_MULTIPLIER * this.cal.spread))
    );
  }

  /** The reported size the next estimate is anchored on, if any. */
  get anchorTokens(): number | undefined {
    return this.anchor?.reported;
  }

  /** Where the anchor's figure came from (undefined without an anchor). */
  get anchorSource(): AnchorSource | undefined {
    return this.anchor?.source;
  }

  /** Estimates the prompt size of `request` before it is sent (normalized, as it will be). Never tokenises a block twice. */
  estimate(input: PromptRequest): Estimate {
    const request = asSent(input);
    const f = this.cal.factor;
    const a = this.anchor;
    if (!a) return this.fullEstimate(this.rawOf(request), 'cold', this.coldOverhead(request.tools));
    const d = this.diff(a, request);
    const added = applyCalibration(this.cal, d.added);
    if (!d.prefixChanged) {
      const margin = this.margin * Math.max(0, added);
      return this.result(a.reported + added + margin, 'anchored', {
        anchorTokens: a.reported,
        addedTokens: added,
        removedTokens: 0,
        overheadTokens: 0,
        marginTokens: margin,
        factor: f,
      });
    }
    const removed = applyCalibration(this.cal, d.removed);
    const total = applyCalibration(this.cal, d.total);
    if (Math.abs(added) + Math.abs(removed) > total) return this.fullEstimate(d.total, 'full', this.overhead ?? 0);
    const margin = this.margin * (Math.abs(added) + Math.abs(removed));
    return this.result(a.reported - removed + added + margin, 'rebased', {
      anchorTokens: a.reported,
      addedTokens: added,
      removedTokens: removed,
      overheadTokens: 0,
      marginTokens: margin,
      factor: f,
    });
  }

  /** A full calibrated recount plus overhead, ignoring the anchor (counts are still memoised). */
  estimateFull(input: PromptRequest): Estimate {
    const request = asSent(input);
    return this.fullEstimate(
      this.rawOf(request),
      this.anchor ? 'full' : 'cold',
      this.overhead ?? this.coldOverhead(request.tools),
    );
  }

  /**
   * Records what the API reported for `request` (the exact request that was sent). Learns
   * the calibration from the change since the previous report, re-anchors on this one, and
   * updates the overhead (reported − calibrated count of the request).
   */
  observe(input: PromptRequest, usage: ReportedUsage): Observation {
    return this.anchorOn(input, reportedPromptTokens(usage), 'usage');
  }

  /**
   * Anchors on the exact prompt size `count_tokens` gave for `request` (the exact request that
   * is being sent), as `observe` does for a report: the next estimates build on it, and the
   * report of the same request that may follow re-anchors on the usage (an unchanged prompt
   * teaches the calibration nothing, so a count never skews it).
   */
  anchorExact(input: PromptRequest, inputTokens: number): Observation {
    return this.anchorOn(input, inputTokens, 'count_tokens');
  }

  private anchorOn(input: PromptRequest, reported: number, source: AnchorSource): Observation {
    const request = asSent(input);
    const a = this.anchor;
    let raw: RawTokens;
    let calibrated = false;
    if (a) {
      const d = this.diff(a, request);
      const delta = subTokens(d.added, d.removed);
      const before = this.cal;
      this.cal = calibrate(this.cal, delta.text, reported - a.reported - delta.fixed, this.options);
      calibrated = this.cal.accepted > before.accepted;
      raw = d.total;
    } else {
      raw = this.rawOf(request);
    }
    this.anchor = {
      system: request.system,
      tools: request.tools,
      messages: request.messages,
      systemRaw: systemRawTokens(request.system, this.tokenizer),
      toolsRaw: toolsRawTokens(request.tools, this.tokenizer),
      raw,
      reported,
      source,
    };
    this.overhead = reported - applyCalibration(this.cal, raw);
    return { reported, calibrated, factor: this.cal.factor, overhead: this.overhead };
  }

  /**
   * Tells the estimator which model the next requests go to. The first call only sets the
   * prior (`priorFactor`, e.g. `priorFactorFor(modelInfo(model).tokenizer)`) when nothing was
   * learned yet; a call with ANOTHER model restarts everything (calibration from that prior,
   * anchor, overhead): counts of one model say nothing exact about another's. Returns whether
   * it restarted.
   */
  useModel(model: string, priorFactor: number): boolean {
    if (this.model === model) return false;
    const first = this.model === undefined;
    this.model = model;
    if (first && (this.anchor || this.cal.accepted > 0)) return false;
    this.options = { ...this.options, priorFactor };
    this.cal = initialCalibration(this.options);
    this.anchor = undefined;
    this.overhead = undefined;
    return !first;
  }

  /** Forgets the anchor (e.g. a new session); keeps the calibration and the learned overhead. */
  resetAnchor(): void {
    this.anchor = undefined;
  }

  private fullEstimate(raw: RawTokens, mode: 'cold' | 'full', overhead: number): Estimate {
    const counted = applyCalibration(this.cal, raw);
    const margin = this.margin * Math.max(0, counted);
    return this.result(overhead + counted + margin, mode, {
      anchorTokens: 0,
      addedTokens: counted,
      removedTokens: 0,
      overheadTokens: overhead,
      marginTokens: margin,
      factor: this.cal.factor,
    });
  }

  private result(tokens: number, mode: EstimateMode, breakdown: Estimate['breakdown']): Estimate {
    return {
      tokens: Math.max(0, Math.ceil(tokens)),
      anchored: mode === 'anchored' || mode === 'rebased',
      mode,
      breakdown,
    };
  }

  private rawOf(request: PromptRequest): RawTokens {
    let raw = addTokens(systemRawTokens(request.system, this.tokenizer), toolsRawTokens(request.tools, this.tokenizer));
    const last = lastTurn(request.messages);
    for (const m of request.messages) raw = addTokens(raw, this.messageRaw(m, last, request.tools));
    return raw;
  }

  /** Whether the current model's earlier-turn thinking is stripped by the API. */
  private strips(): boolean {
    return this.model !== undefined && stripsEarlierThinking(this.model);
  }

  /** A message's raw tokens as the API counts them in a request whose last turn is `last`. */
  private messageRaw(m: Message, last: number, tools: PromptRequest['tools']): RawTokens {
    const own = messageRawTokens(m, this.tokenizer);
    const loaded = m.role === 'assistant' ? referencedToolsRawTokens(m, tools, this.tokenizer) : 0;
    const raw = loaded === 0 ? own : { text: own.text + loaded, fixed: own.fixed };
    if (m.role !== 'assistant' || m.turn >= last || !this.strips()) return raw;
    const thinking = messageThinkingRawTokens(m, this.tokenizer);
    return thinking === 0 ? raw : subTokens(raw, { text: thinking, fixed: 0 });
  }

  /** What changed between the anchor's request and `request`, in raw tokens. */
  private diff(a: Anchor, request: PromptRequest): Diff {
    let removed: RawTokens = NO_TOKENS;
    let added: RawTokens = NO_TOKENS;
    const systemChanged = !sameItems(a.system, request.system);
    const toolsChanged = !sameItems(a.tools, request.tools);
    if (systemChanged) {
      removed = addTokens(removed, a.systemRaw);
      added = addTokens(added, systemRawTokens(request.system, this.tokenizer));
    }
    if (toolsChanged) {
      removed = addTokens(removed, a.toolsRaw);
      added = addTokens(added, toolsRawTokens(request.tools, this.tokenizer));
    }
    const old = a.messages;
    const cur = request.messages;
    let common = 0;
    if (old === cur) common = old.length;
    else while (common < old.length && common < cur.length && old[common] === cur[common]) common++;
    const oldLast = lastTurn(old);
    const curLast = lastTurn(cur);
    for (let i = common; i < old.length; i++)
      removed = addTokens(removed, this.messageRaw(old[i] as Message, oldLast, a.tools));
    for (let i = common; i < cur.length; i++)
      added = addTokens(added, this.messageRaw(cur[i] as Message, curLast, request.tools));
    if (curLast > oldLast && this.strips()) {
      // A new turn: the anchor counted its last turn's thinking, which the API now strips.
      for (let i = common - 1; i >= 0 && (old[i] as Message).turn >= oldLast; i--) {
        const m = old[i] as Message;
        if (m.role === 'assistant')
          added = subTokens(added, { text: messageThinkingRawTokens(m, this.tokenizer), fixed: 0 });
      }
    }
    const prefixChanged = systemChanged || toolsChanged || common < old.length;
    return { prefixChanged, removed, added, total: addTokens(subTokens(a.raw, removed), added) };
  }
}
