import type { SessionSink } from '../core/agent/events';
import type { CompactionEntryState } from '../core/agent/agentSession';
import type { Message } from '../core/conversation/conversationModel';
import type { Plan } from '../core/plan/plan';
import type { RequestHistory } from '../core/session/requestHistory';

/** A session opened for chatting: its history so far and where new entries go. */
export interface OpenSession {
  readonly id: string;
  /** A title the user gave the session, if any (else it is named by its first words). */
  readonly title?: string;
  readonly messages: readonly Message[];
  /** The agent's plan as the session left it (absent: none). */
  readonly plan?: Plan;
  /** Compactions recorded in the session, oldest first, with whether each is in effect. */
  readonly compactions: readonly CompactionEntryState[];
  /** Cost so far (undefined when a request's price is unknown) and the last reported prompt size, for the header. */
  readonly costUsd: number | undefined;
  readonly lastPromptTokens: number;
  /** The requests made so far (usage, compaction markers), for the budget panel's history. */
  readonly requestHistory: RequestHistory;
  readonly sink: SessionSink;
  /** Human sentences about repairs made while loading (empty when the file was sound). */
  readonly repairs: readonly string[];
  close(): Promise<void>;
}

/** How the chat reaches durable sessions (implemented over the session store). */
export interface SessionPort {
  /** A new, empty session. */
  create(model: string): Promise<OpenSession>;
  /** The most recently updated session, if any. */
  openLatest(): Promise<OpenSession | undefined>;
  /** A session by id; an error value when it cannot be loaded at all. */
  open(id: string): Promise<{ ok: true; session: OpenSession } | { ok: false; error: string }>;
}
