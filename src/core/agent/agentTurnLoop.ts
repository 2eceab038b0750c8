import type { CutUsage, LlmResult } from '../llm/llmClient';
import type { ToolCall, ToolOutcome, ToolRunner } from '../tools/toolRunner';
import { assembleUserMessage, type ToolResultInput } from '../conversation/assemble';
import type { CacheTtl, Message } from '../conversation/conversationModel';
import { usualWriteTtl } from '../cache/usualWriteTtl';
import { priorFactorFor } from '../tokens/calibration';
import { modelInfo } from '../models/modelFacts';
import { acceptedServerCompaction, serverCompactionRecord } from '../compaction/serverCompaction';
import { requestCostUsd } from '../llm/cost';
import { serverRequestFor } from './serverRequest';
import { requestPrefixDigest } from '../pipeline/thinkingBinding';
import { turnEndReason, type TurnEndReason } from './events';
import { newRecoveryBudget, recoverOverflow } from './overflowRecovery';
import { runToolRound, type ToolRoundResults } from './toolRound';
import { roundGuardNotice } from '../compaction/roundGuard';
import { addContextAfterTools } from './contextAfterTools';
import { errorText } from '../text/errors';
import type { SessionCore } from './sessionCore';
import {
  resultsNotKept,
  saveOrStop,
  SessionWriteError,
  sessionFileFailure,
  sessionFolderFailure,
} from './sessionWrite';
import { STOPPED_WHILE_TOOLS_RAN } from '../normalize/standInAnswers';
import { plural } from '../text/counts';
import { TASK } from '../subagents/taskSpec';
import type { EngineUse } from '../engine/engineSlot';

/** Tools whose calls of one round run together: subagents (each in its own context). */
const PARALLEL_TOOLS: ReadonlySet<string> = new Set([TASK]);

/**
 * The turn loop of a session: assemble → compact when due → cache anchors → serialize →
 * stream → run tools → next request … until the model ends its turn, hits max_tokens or
 * refuses, the user stops, a compaction or a message cannot be saved (sessionWrite.ts: memory
 * stays as the file has it, one `error` tells why), or an error remains after retries.
 * The user's message is already in `core.state` (its last message). Every completed message
 * goes to the session sink before the next step, so a crash loses at most the message being
 * streamed. Runs under `controller`, the turn's (begun with `core.beginRun` by the caller from
 * Send on, so a Stop or a Compact Now while the user's message was being saved already
 * applies); ends that run (`core.endRun`) when done and always ends with `turn_finished`.
 * `tools`: the workspace tools with `recall` answered on this session's compactions.
 */
export async function runTurnLoop(core: SessionCore, tools: ToolRunner, controller: AbortController): Promise<void> {
  let reason: TurnEndReason = 'end_turn';
  let stopReason: string | null | undefined;
  try {
    const recovery = newRecoveryBudget();
    for (let round = 1; ; round++) {
      if (round > core.deps.maxToolRounds) {
        reason = 'tool_limit';
        core.emit({
          type: 'notice',
          level: 'warning',
          text: `Stopped after ${plural(core.deps.maxToolRounds, 'tool round')} in one turn (contextPipeline.maxToolRounds). Send a message to let Claude continue.`,
        });
        break;
      }
      // find_tools may have loaded tools in the round before: they join this request.
      core.planTools();
      const engine = core.deps.engine;
      // An engine that owns compaction keeps the history within its budget itself: the layers stay off.
      const engineOwns = engine?.ownsCompaction() ?? false;
      if (!engineOwns && !(await compactBeforeRequest(core, controller))) {
        reason = 'error';
        break;
      }
      // Stopped before the request (while the message was saved, or a compaction ran): nothing is sent.
      if (controller.signal.aborted) {
        reason = 'stopped';
        if (core.state.messages.at(-1)?.role === 'user') await core.recordStop('');
        break;
      }
      let sent = core.state;
      let engineUse: EngineUse | undefined;
      if (engine && !controller.signal.aborted) {
        const step = await engine.assemble(core.state, { signal: controller.signal });
        engineUse = step.use;
        if (step.kind === 'engine') sent = step.state;
        else {
          if (step.notice) core.emit({ type: 'notice', level: 'warning', text: step.notice });
          // The layered engine serves this request: its layers run now if the engine had kept them off.
          if (engineOwns && !(await compactBeforeRequest(core, controller))) {
            reason = 'error';
            break;
          }
          sent = core.state;
        }
      }
      // A model switch restarts the estimator's calibration from that model's tokenizer prior.
      core.deps.estimator.useModel(sent.config.model, priorFactorFor(modelInfo(sent.config.model).tokenizer));
      const prepared = core.prepare(sent);
      let streamedText = '';
      const server = serverRequestFor(sent, core.deps.compactor?.settings());
      if (!server.ok) {
        core.emit({
          type: 'error',
          error: {
            kind: 'invalid_request',
            retryable: false,
            message: `${server.reason} Choose another contextPipeline.compactionStrategy or model; your message is kept.`,
          },
        });
        reason = 'error';
        break;
      }
      // Beside the stream, never before it: the first request per model gets an exact count.
      const params = core.accounting.beforeSend(sent, prepared, controller.signal);
      // Attempts cut off after their answers began (retried, or the last): billed below.
      const cuts: CutUsage[] = [];
      const answer = await core.deps.llm.stream(params, {
        signal: controller.signal,
        ...(server.value ? { server: server.value } : {}),
        onEvent: (e) => {
          if (e.type === 'request_started') {
            streamedText = '';
            core.emit({
              type: 'request_started',
              round,
              attempt: e.attempt,
              estimatedTokens: prepared.tokens.total,
              anchored: prepared.tokens.anchored,
              ...(prepared.repairs.length > 0 ? { repairs: prepared.repairs } : {}),
              ...(engineUse ? { engine: engineUse } : {}),
            });
          } else if (e.type === 'text_delta') {
            streamedText += e.text;
            core.emit({ type: 'text_delta', text: e.text });
          } else if (e.type === 'thinking_delta') core.emit({ type: 'thinking_delta', text: e.thinking });
          else if (e.type === 'tool_use_started') core.emit({ type: 'tool_use_started', id: e.id, name: e.name });
          else if (e.type === 'retrying') {
            if (e.error.cut) cuts.push(e.error.cut);
            core.emit({ type: 'retrying', attempt: e.attempt, waitMs: e.waitMs, error: e.error });
          }
        },
      });
      if (!answer.ok && answer.error.cut) cuts.push(answer.error.cut);
      await core.accounting.cutOff(sent, prepared, cuts);
      if (!answer.ok) {
        if (answer.error.kind === 'aborted' || controller.signal.aborted) {
          await core.recordStop(streamedText);
          reason = 'stopped';
          break;
        }
        if (answer.error.kind === 'prompt_too_long' || answer.error.kind === 'context_exceeded') {
          const step = await recoverOverflow(
            core.state,
            answer.error,
            recovery,
            core.deps.compactor,
            controller.signal,
            {
              clock: core.deps.clock,
              ids: core.deps.ids,
              tokensOf: (m) =>
                core.deps.compactor?.tokensOf(m) ??
                core.deps.estimator.estimate({ ...core.state, system: [], tools: [], messages: [m] }).tokens,
            },
          );
          if (step) {
            const adopted = await core.adopt(step.state, step.records, step.notices);
            if (!adopted.ok) {
              reason = 'error';
              break;
            }
            round--;
            continue;
          }
          if (controller.signal.aborted) {
            await core.recordStop('');
            reason = 'stopped';
            break;
          }
          core.emit({
            type: 'error',
            error: {
              ...answer.error,
              message: `${answer.error.message} Nothing more can be cut automatically: start a new session, or remove large pasted or pinned content.`,
            },
          });
          reason = 'error';
          break;
        }
        core.emit({ type: 'error', error: answer.error });
        reason = 'error';
        break;
      }
      const result = answer.result;
      await core.accounting.answered(sent, prepared, result);
      engine?.observe(result.usage);
      stopReason = result.stopReason;
      const asked = server.value?.contextManagement?.edits.some((e) => e.type === 'compact_20260112') ?? false;
      const accepted = acceptedServerCompaction(result.content, asked);
      if (accepted.dropped) core.emit({ type: 'notice', level: 'warning', text: accepted.dropped });
      const content =
        accepted.content.length > 0
          ? [...accepted.content]
          : [{ type: 'text' as const, text: '[Claude returned an empty answer.]' }];
      const thinks = content.some((c) => c.type === 'thinking' || c.type === 'redacted_thinking');
      const message = await core.appendAssistant(content, thinks ? requestPrefixDigest(prepared.sent) : undefined);
      if (!message) {
        reason = 'error';
        break;
      }
      core.deps.compactor?.observeAnswer(result.usage, message);
      await adoptServerCompaction(core, message, result, usualWriteTtl(sent.config.cacheTtl));
      const calls: ToolCall[] = message.blocks.flatMap((b) =>
        b.type === 'tool_use' ? [{ id: b.id, name: b.name, input: b.input }] : [],
      );
      if (calls.length === 0) {
        reason = turnEndReason(result.stopReason);
        const afterTurn = await engine?.afterTurn(core.state, controller.signal);
        if (afterTurn) core.emit({ type: 'notice', level: 'warning', text: afterTurn });
        if (reason === 'max_tokens')
          core.emit({
            type: 'notice',
            level: 'warning',
            text: 'The answer reached the output limit (max_tokens) and was cut. Ask Claude to continue.',
          });
        if (reason === 'refusal')
          core.emit({ type: 'notice', level: 'warning', text: 'Claude declined to answer this request.' });
        if (reason === 'other')
          core.emit({
            type: 'notice',
            level: 'info',
            text: `The turn ended with stop reason "${String(result.stopReason)}".`,
          });
        break;
      }
      const outcomes = new Map<string, ToolOutcome>();
      const ran = await runToolRound(calls, controller.signal, {
        tools: tools,
        ...(core.deps.compactor ? { compactor: core.deps.compactor } : {}),
        writeFile: core.deps.writeFile,
        spillDirectory: core.deps.pasteDirectory,
        contextWindow: core.state.config.contextWindow,
        ...(core.deps.subagents
          ? { parallel: { names: PARALLEL_TOOLS, limit: core.deps.subagents.settings().maxConcurrent } }
          : {}),
        emit: (e) => {
          if (e.type === 'tool_finished') outcomes.set(e.call.id, e.outcome);
          core.emit(e);
        },
      });
      const results = await fitRound(core, calls, ran, outcomes);
      // Memory changes only once the results are saved: a failed save leaves it as the file has it.
      const withContext = await addContextAfterTools(core.state, core.deps.contextAfterTools, calls, results, {
        note: (text) => core.emit({ type: 'notice', level: 'info', text }),
        warn: (text) => core.emit({ type: 'notice', level: 'warning', text }),
      });
      const assembled = assembleUserMessage(
        withContext,
        { toolResults: results, pasteDirectory: core.deps.pasteDirectory },
        core.deps,
      );
      if (!assembled.ok) {
        core.emit({
          type: 'error',
          error: {
            kind: 'unknown',
            retryable: false,
            message: `Internal error while returning tool results: ${assembled.error.message}`,
          },
        });
        reason = 'error';
        break;
      }
      const names = [...new Set(calls.map((c) => c.name))].join(', ');
      await saveOrStop(
        () => core.deps.sink.message(assembled.value.message),
        (err) => sessionFileFailure(err, resultsNotKept(`the results of ${names}`), 'send a message'),
      );
      core.appendSavedUser(assembled.value, withContext);
      core.emit({ type: 'message_added', message: assembled.value.message, injected: assembled.value.injected });
      if (controller.signal.aborted) {
        // The cancelled results are in history; end with a short note so the next user message alternates.
        await core.appendAssistant(
          [{ type: 'text', text: STOPPED_WHILE_TOOLS_RAN }],
          undefined,
          'the note that the turn was stopped',
        );
        reason = 'stopped';
        break;
      }
    }
  } catch (err) {
    // The core's boundary: a failed write (or anything unforeseen) is an error event, and the turn ends.
    reason = 'error';
    core.emit({
      type: 'error',
      error:
        err instanceof SessionWriteError
          ? err.error
          : { kind: 'unknown', retryable: false, message: `The turn failed unexpectedly: ${errorText(err)}` },
    });
  } finally {
    core.endRun(controller);
    core.emit({ type: 'turn_finished', reason, ...(stopReason !== undefined ? { stopReason } : {}) });
  }
}

/**
 * The pipeline's own compaction before a request, when due (the layered engine): adopted when
 * it changed anything. False when its result could not be saved (the turn must end; the error
 * was emitted).
 */
async function compactBeforeRequest(core: SessionCore, controller: AbortController): Promise<boolean> {
  const compactor = core.deps.compactor;
  if (!compactor) return true;
  const run = await compactor.beforeRequest(core.state, {
    ...(core.accounting.lastRequestAt !== undefined ? { lastRequestAt: core.accounting.lastRequestAt } : {}),
    ...(core.accounting.previousBreakpoint ? { lastTtl: core.accounting.previousBreakpoint.ttl } : {}),
    signal: controller.signal,
    onSummarising: (start) => core.emit({ type: 'compaction_started', ...start }),
  });
  if (run.records.length === 0 && run.notices.length === 0) return true;
  // A compaction that cannot be saved is not applied: the turn ends (the message stays; Retry resends it).
  const adopted = await core.adopt(run.state, run.records, run.notices);
  return adopted.ok;
}

/**
 * The round guard (roundGuard.ts): when the round's results together are more than the window
 * leaves for them, the largest are spilled to the session folder (written here), their cards
 * updated to what the model sees, and the user is told; the results as they are otherwise (and
 * without a compactor).
 */
async function fitRound(
  core: SessionCore,
  calls: readonly ToolCall[],
  { results, originals }: ToolRoundResults,
  outcomes: ReadonlyMap<string, ToolOutcome>,
): Promise<readonly ToolResultInput[]> {
  const compactor = core.deps.compactor;
  if (!compactor) return results;
  const byId = new Map(calls.map((c) => [c.id, c]));
  const fitted = compactor.guardRound(core.state, results, {
    spillDirectory: core.deps.pasteDirectory,
    toolName: (id) => byId.get(id)?.name ?? 'tool',
    original: (id) => originals.get(id),
  });
  for (const spill of fitted.spills)
    await saveOrStop(
      () => core.deps.writeFile(spill.path, spill.content),
      (err) =>
        sessionFolderFailure(
          err,
          `A tool output (${spill.path})`,
          resultsNotKept("the round's results"),
          'send a message',
        ),
    );
  // A changed result's card shows what the model will see, as after a reload.
  fitted.results.forEach((r, i) => {
    const call = byId.get(r.toolUseId);
    const outcome = outcomes.get(r.toolUseId);
    if (r !== results[i] && call && outcome)
      core.emit({ type: 'tool_finished', call, outcome: { ...outcome, content: r.content } });
  });
  const notice = roundGuardNotice(fitted);
  if (notice) core.emit({ type: 'notice', level: 'info', text: notice });
  return fitted.results;
}

/**
 * When the answer carries a server compaction block: the messages the API now ignores
 * become a record (shown in the Compactions view with the summary), persisted like ours.
 * When its record cannot be saved, adopt reports that and the turn goes on: the API has
 * compacted anyway, only the record for the Compactions view is missing.
 */
async function adoptServerCompaction(
  core: SessionCore,
  message: Message,
  result: LlmResult,
  ttl: CacheTtl,
): Promise<void> {
  const compactionUsage = (result.server?.iterations ?? []).filter((i) => i.type === 'compaction');
  const costUsd = compactionUsage.reduce(
    (n, u) => n + (requestCostUsd(result.model || core.state.config.model, u, ttl) ?? 0),
    0,
  );
  const compactor = core.deps.compactor;
  const r = serverCompactionRecord(core.state, message, {
    clock: core.deps.clock,
    ids: core.deps.ids,
    tokensOf: (m) => compactor?.tokensOf(m) ?? 0,
    costUsd,
    model: result.model,
    strategy: core.deps.compactor?.settings().strategy ?? 'server-compact',
  });
  if (!r) return;
  core.emit({ type: 'compaction_started', trigger: 'auto-soft' });
  await core.adopt(r.state, [r.record], []);
}
