import type { SessionSink } from '../core/agent/events';
import type { CompactionEntryState } from '../core/agent/agentSession';
import type { Message, Plan } from '../core/conversation/conversationModel';
import type { PlanChange } from '../core/plan/planHistory';
import type { PastRequest } from '../core/cache/replyGaps';
import type { RequestHistory } from '../core/session/requestHistory';
import type { SubagentRecord } from '../core/subagents/subagentRecord';
import type { ContinuedFrom } from '../core/session/entries';

/** A session opened for chatting: its history so far and where new entries go. */
export interface OpenSession {
  readonly id: string;
  /** A title the user gave the session, if any (else it is named by its first words). */
  readonly title?: string;
  /** The session it continues, when it was handed off to (Continue in a New Session). */
  readonly continuedFrom?: ContinuedFrom;
  readonly messages: readonly Message[];
  /** The agent's plan as the session left it (absent: none). */
  readonly plan?: Plan;
  /** Every change of the plan so far, oldest first (a rewind puts the plan back by it). */
  readonly planChanges?: readonly PlanChange[];
  /** Compactions recorded in the session, oldest first, with whether each is in effect. */
  readonly compactions: readonly CompactionEntryState[];
  /** The subagents that ended, oldest first (their cards and the bill). */
  readonly subagents: readonly SubagentRecord[];
  /**
   * Cost so far, its compactions' summaries, its subagents' and its handoff note's included (undefined when a
   * request's price is unknown), and the last reported prompt size, for the header.
   */
  readonly costUsd: number | undefined;
  readonly lastPromptTokens: number;
  /** The requests made so far (usage, compaction markers), for the budget panel's history. */
  readonly requestHistory: RequestHistory;
  /** When each request so far was answered, and its turn, oldest first: the rhythm the cache lifetimes learn from. */
  readonly pastRequests: readonly PastRequest[];
  readonly sink: SessionSink;
  /** Human sentences about repairs made while loading (empty when the file was sound). */
  readonly repairs: readonly string[];
  close(): Promise<void>;
}

/** How the chat reaches durable sessions (implemented over the session store). */
export interface SessionPort {
  /**
   * A new, empty session; `handoff`: it continues another (its header names that session) and
   * starts with that session's plan (saved as its first plan line).
   */
  create(
    model: string,
    handoff?: { readonly continuedFrom: ContinuedFrom; readonly plan?: Plan },
  ): Promise<OpenSession>;
  /**
   * A new, empty session of a subagent: its header names the parent session and its task call
   * (it is listed under its parent), `title` its task.
   */
  createChild(
    model: string,
    parent: { readonly sessionId: string; readonly toolUseId: string; readonly title: string },
  ): Promise<OpenSession>;
  /** Saves a readable Markdown transcript of session `id` (secrets redacted) to the file `dest`. */
  saveTranscript(id: string, dest: string): Promise<{ ok: true } | { ok: false; error: string }>;
  /** The Markdown transcript of session `id` (secrets redacted), for a read-only view. */
  transcript(id: string): Promise<{ ok: true; text: string } | { ok: false; error: string }>;
  /** The most recently updated session, if any. */
  openLatest(): Promise<OpenSession | undefined>;
  /** A session by id; an error value when it cannot be loaded at all. */
  open(id: string): Promise<{ ok: true; session: OpenSession } | { ok: false; error: string }>;
}
