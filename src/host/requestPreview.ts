import * as vscode from 'vscode';
import { applyUserMessage, assembleUserMessage, type TurnInput } from '../core/conversation/assemble';
import { buildLedger, describeRepairs } from '../core/pipeline/ledger';
import type { ConversationState, Injection, ToolSchema } from '../core/conversation/conversationModel';
import { prepareRequest, type PreparedRequest } from '../core/pipeline/pipeline';
import type { EngineUse } from '../core/engine/engineSlot';
import { counterIds, type Clock, type Tokenizer } from '../core/platform/platformPorts';
import { makeRequestCounter } from '../core/tokens/requestTokens';
import { outlookLine, requestOutlook } from '../core/pipeline/requestOutlook';
import type { PreviousBreakpoint } from '../core/cache/cacheAnchors';
import { sessionSystemPrompt } from '../core/projectContext/staticPrompt';
import { TokenEstimator } from '../core/tokens/estimator';
import type { ChatToWebview } from '../protocol/chat';
import { currentEditorInjections } from './editorContextTracker';
import { readPipelineConfig } from './settings';
import { loadTokenizer } from './tokenizerLoader';

type PreviewResult = Extract<ChatToWebview, { type: 'previewResult' }>;

const clock: Clock = { now: () => Date.now() };

/**
 * Assembles — but does not send — the request a message would produce right now: the
 * session's history, the system prompt and tools, the editor context the settings allow,
 * and the user's words, through the same core pipeline a real turn uses (assemble →
 * normalize → estimate → cache anchors → serialize); what normalize repaired is in the notes.
 * The tokenizer loads on the first preview, never at activation.
 */
export class RequestPreviewer {
  private tokenizer: Promise<Tokenizer> | undefined;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    /** The current session's conversation, when one is open (the preview builds on it). */
    private readonly current: () => Promise<ConversationState | undefined>,
    private readonly toolSchemas: () => readonly ToolSchema[],
    /** The session's estimator when one is open: the preview is then anchored like the real request. */
    private readonly sessionEstimator: () => TokenEstimator | undefined = () => undefined,
    /** The editor context the next message would carry, without consuming it. */
    private readonly editorInjections: () => Injection[] = () => currentEditorInjections(),
    /** The session's last cache breakpoint: the outlook says what the cache should still hold. */
    private readonly sessionPrevious: () => PreviousBreakpoint | undefined = () => undefined,
    /**
     * The open session's request path (AgentSession.previewRequest: its context engine, then
     * prepare with its cache memory and lifetimes): the preview is built the way the send builds it.
     */
    private readonly sessionRequest: () =>
      ((state: ConversationState) => Promise<{ prepared: PreparedRequest; engine?: EngineUse }>) | undefined = () =>
      undefined,
  ) {}

  /** Builds the preview for `text` (and its images); problems come back as an error result, never a throw. */
  async preview(requestId: number, text: string, images: TurnInput['images'] = []): Promise<PreviewResult> {
    const resolved = readPipelineConfig();
    if (!resolved.ok) return { type: 'previewResult', requestId, ok: false, error: resolved.error };
    const tokenizer = await (this.tokenizer ??= loadTokenizer().then((r) => {
      if (r.fallbackReason) this.log.warn(`Tokenizer fell back to chars/4: ${r.fallbackReason}`);
      return r.tokenizer;
    }));
    const ids = counterIds('preview');
    const base = await this.current();
    const state: ConversationState = base
      ? { ...base, tools: this.toolSchemas(), pending: this.editorInjections(), config: resolved.config }
      : {
          system: sessionSystemPrompt({ clock, ids }),
          tools: this.toolSchemas(),
          messages: [],
          pending: this.editorInjections(),
          config: resolved.config,
        };
    const assembled = assembleUserMessage(
      state,
      { userText: text, images, pasteDirectory: '<session folder>' },
      { clock, ids },
    );
    if (!assembled.ok) return { type: 'previewResult', requestId, ok: false, error: assembled.error.message };
    const next = applyUserMessage(state, assembled.value);
    const estimator = (base ? this.sessionEstimator() : undefined) ?? new TokenEstimator(tokenizer);
    const previous = base ? this.sessionPrevious() : undefined;
    const viaSession = base ? this.sessionRequest() : undefined;
    const built = viaSession
      ? await viaSession(next)
      : { prepared: prepareRequest(next, { count: makeRequestCounter(estimator, tokenizer), clock }) };
    const prepared = built.prepared;
    const engine = 'engine' in built ? built.engine : undefined;
    const outlook = requestOutlook({
      model: resolved.config.model,
      tokens: prepared.tokens,
      anchors: prepared.anchors,
      messageIds: prepared.sent.messages.map((m) => m.id),
      ...(previous ? { previous } : {}),
      now: clock.now(),
    });
    // Normalized messages (prepared.sent): what the anchors index and what is really sent.
    const ledger = buildLedger(prepared.sent, prepared.anchors, tokenizer, estimator.calibration, prepared.repairs);
    const repaired = describeRepairs(prepared.repairs);
    const notes = [
      ...(repaired ? [repaired, ...prepared.repairs.slice(0, 5).map((r) => `Repair: ${r.detail}`)] : []),
      `Estimated with ${tokenizer.name} × ${estimator.calibration.factor.toFixed(2)}${prepared.tokens.anchored ? ', anchored on the last usage the API reported' : ''}${base && base.messages.length > 0 ? ", on top of this session's history" : ''}.`,
      ...(engine && engine.id !== 'layered'
        ? [
            engine.fallback
              ? `Context engine: ${engine.name} would not be used (${engine.fallback}).`
              : `Context engine: ${engine.name} chose these messages (the session keeps the whole history).`,
          ]
        : []),
      ...assembled.value.dropped.map((d) => `Left out: ${d.reason}.`),
      ...(assembled.value.injected.length === 0
        ? ['No editor context: no file is active, or editor context is off.']
        : []),
    ];
    const spill = assembled.value.spills[0];
    return {
      type: 'previewResult',
      requestId,
      ok: true,
      estimatedTokens: prepared.tokens.total,
      contextWindow: resolved.config.contextWindow,
      summary: outlookLine(outlook),
      rows: ledger.map((r) => ({
        position: r.position,
        role: r.role,
        kind: r.kind,
        source: r.source,
        tokens: r.tokens,
        preview: r.preview,
        breakpoint: r.breakpoint,
        ...(r.ttl ? { breakpointTtl: r.ttl.value } : {}),
      })),
      breakpoints: prepared.anchors.map((a) => ({
        label: a.target.at === 'message' ? `message ${a.target.messageIndex + 1}` : a.target.at,
        prefixTokens: Math.round(a.prefixTokens),
        hitProbability: a.hitProbability,
        reason: a.reason,
        ttl: a.ttl,
        ttlReason: a.ttlReason,
      })),
      ...(spill ? { spilledTo: spill.path } : {}),
      notes: spill
        ? [
            ...notes,
            `This paste (${text.length.toLocaleString('en-US')} characters) would be saved to a file in the session folder and referenced; the preview does not write it.`,
          ]
        : notes,
    };
  }
}
