import type { SessionSink } from '../../core/agent/events';
import type { Message, Plan } from '../../core/conversation/conversationModel';
import type { PastSession } from '../../core/recall/corpus';
import type { ContinuedFrom } from '../../core/session/entries';
import { sessionDisplayTitle } from '../../core/session/markdown';
import { continuedTitle } from '../../core/handoff/handoffContent';
import type { ReplayedSession } from '../../core/session/replay';
import { EMPTY_REQUEST_HISTORY } from '../../core/session/requestHistory';
import { reportedPromptTokens } from '../../core/tokens/promptTokens';
import type { SessionWriter } from '../sessions/sessionFile';
import { entryToRecord, recordToEntry } from '../../core/session/compactionEntry';
import { subagentEntryOf } from '../../core/session/subagentEntry';
import { sessionCostUsd } from '../../core/session/sessionCost';
import type { SessionStore } from '../sessions/sessionStore';
import type { OpenSession, SessionPort } from '../../app/sessionPort';

/** The chat's view of the session store: open or create, then append as the turn goes. */
export class StoreSessionPort implements SessionPort {
  constructor(
    private readonly store: SessionStore,
    private readonly workspace: () => string,
    private readonly now: () => number = Date.now,
  ) {}

  async create(
    model: string,
    handoff?: { readonly continuedFrom: ContinuedFrom; readonly plan?: Plan },
  ): Promise<OpenSession> {
    // A session handed off to is titled after the one it continues (its first words are the note's).
    const title = handoff ? continuedTitle(handoff.continuedFrom.title) : undefined;
    const created = await this.store.create({
      model,
      workspace: this.workspace(),
      ...(handoff ? { continuedFrom: handoff.continuedFrom, title } : {}),
    });
    const plan = handoff?.plan;
    const at = this.now();
    if (plan) {
      try {
        await created.writer.append({ type: 'plan', at, steps: plan.steps });
      } catch (e) {
        await created.writer.close();
        throw e;
      }
    }
    return this.wrap(created.id, created.writer, undefined, [], {
      ...(handoff ? { continuedFrom: handoff.continuedFrom, title } : {}),
      ...(plan ? { plan: { plan, at } } : {}),
    });
  }

  /**
   * The session `id` as `recall` reads it in the session that continues it: its conversation and
   * compactions, read-only (its writer is not taken); undefined when it cannot be read.
   */
  async past(id: string): Promise<PastSession | undefined> {
    const r = await this.store.read(id).catch(() => undefined);
    if (!r?.ok) return undefined;
    return {
      sessionId: id,
      title: sessionDisplayTitle(r.session.title, r.session.messages) || id,
      messages: r.session.messages,
      compactions: r.session.compactions.map((c) => ({ record: entryToRecord(c.entry) })),
    };
  }

  async createChild(
    model: string,
    parent: { readonly sessionId: string; readonly toolUseId: string; readonly title: string },
  ): Promise<OpenSession> {
    const created = await this.store.create({
      model,
      workspace: this.workspace(),
      title: parent.title,
      parent: { sessionId: parent.sessionId, toolUseId: parent.toolUseId },
    });
    return this.wrap(created.id, created.writer, undefined, []);
  }

  saveTranscript(id: string, dest: string): Promise<{ ok: true } | { ok: false; error: string }> {
    return this.store.exportMarkdown(id, dest);
  }

  transcript(id: string): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
    return this.store.markdown(id);
  }

  async openLatest(): Promise<OpenSession | undefined> {
    const list = await this.store.list();
    const latest = list.find((s) => s.hasMessages) ?? list[0];
    if (!latest) return undefined;
    const r = await this.open(latest.id);
    return r.ok ? r.session : undefined;
  }

  async open(id: string): Promise<{ ok: true; session: OpenSession } | { ok: false; error: string }> {
    const r = await this.store.open(id);
    if (!r.ok) return r;
    const repairs = r.report
      ? [
          ...r.report.fixes,
          ...r.report.droppedLines.map((d) => `line ${d.line} was dropped (${d.reason})`),
          ...(r.report.backupPath ? [`The original was backed up to ${r.report.backupPath}.`] : []),
        ]
      : [];
    return { ok: true, session: this.wrap(id, r.writer, r.session, repairs) };
  }

  private wrap(
    id: string,
    writer: SessionWriter,
    replayed: ReplayedSession | undefined,
    repairs: string[],
    fresh: {
      /** A new session's: the session it continues and its title, and its first plan. */
      readonly continuedFrom?: ContinuedFrom;
      readonly title?: string;
      readonly plan?: { readonly plan: Plan; readonly at: number };
    } = {},
  ): OpenSession {
    const continuedFrom = replayed?.header.continuedFrom ?? fresh.continuedFrom;
    const title = replayed?.title ?? fresh.title;
    const firstPlan = fresh.plan;
    const messages: readonly Message[] = replayed?.messages ?? [];
    let requestIndex = replayed?.usage.length ?? 0;
    let turn = messages.at(-1)?.turn ?? 0;
    const last = replayed?.usage.at(-1);
    const sink: SessionSink = {
      message: async (message) => {
        turn = message.turn;
        await writer.append({ type: 'message', at: this.now(), message });
      },
      compaction: async (record) => {
        await writer.append(recordToEntry(record));
      },
      pins: async (blockIds, pinned) => {
        for (const blockId of blockIds)
          await writer.append({ type: pinned ? 'pin' : 'unpin', at: this.now(), blockId });
      },
      restore: async (recordId) => {
        await writer.append({ type: 'restore', at: this.now(), compactionId: recordId });
      },
      plan: async (p) => {
        await writer.append({
          type: 'plan',
          at: p.at,
          steps: p.plan?.steps ?? [],
          ...(p.toolUseId !== undefined ? { toolUseId: p.toolUseId } : {}),
        });
      },
      subagent: async (record) => {
        await writer.append({ ...subagentEntryOf(record), at: record.at });
      },
      spend: async (r) => {
        await writer.append({
          type: 'spend',
          at: r.at,
          for: 'summary',
          model: r.model,
          ...(r.costUsd !== undefined ? { costUsd: r.costUsd } : {}),
        });
      },
      recall: async (r) => {
        await writer.append({ type: 'recall', at: r.at, toolUseId: r.toolUseId, compactionIds: r.compactionIds });
      },
      usage: async (u) => {
        requestIndex++;
        await writer.append({
          type: 'usage',
          at: u.at,
          requestIndex,
          turn,
          model: u.model,
          usage: u.usage,
          estimatedInputTokens: u.estimatedTokens,
          ...(u.costUsd !== undefined ? { costUsd: u.costUsd } : {}),
          ...(u.cacheMiss ? { cacheMiss: u.cacheMiss } : {}),
          ...(u.server ? { server: u.server } : {}),
          ...(u.counted !== undefined ? { counted: u.counted } : {}),
          ...(u.cut ? { cut: true as const } : {}),
        });
      },
    };
    return {
      id,
      ...(title ? { title } : {}),
      ...(continuedFrom ? { continuedFrom } : {}),
      messages,
      ...(replayed?.plan ? { plan: replayed.plan } : {}),
      ...(replayed?.planChanges.length ? { planChanges: replayed.planChanges } : {}),
      ...(firstPlan ? { plan: firstPlan.plan, planChanges: [firstPlan] } : {}),
      compactions: (replayed?.compactions ?? []).map((c) => ({
        record: entryToRecord(c.entry),
        active: c.active,
        ...(c.orphaned ? { orphaned: c.orphaned } : {}),
        ...(c.recalled ? { recalled: c.recalled } : {}),
      })),
      costUsd: sessionCostUsd({
        usage: replayed?.usage ?? [],
        compactions: replayed?.compactions ?? [],
        subagents: replayed?.subagents ?? [],
        stoppedSummaries: replayed?.requestHistory.stoppedSummaries ?? [],
        ...(continuedFrom ? { continuedFrom } : {}),
      }),
      subagents: replayed?.subagents ?? [],
      lastPromptTokens: last ? reportedPromptTokens(last.usage) : 0,
      requestHistory: replayed?.requestHistory ?? EMPTY_REQUEST_HISTORY,
      pastRequests: (replayed?.usage ?? []).map((u) => ({ at: u.at, turn: u.turn })),
      sink,
      repairs,
      close: () => writer.close(),
    };
  }
}
