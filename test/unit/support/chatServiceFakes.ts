/**
 * Fakes of the chat service's ports (view, toasts, settings, sessions, agent factory) for the
 * app.* tests. The agent is a real AgentSession; its LLM client comes from a recording
 * factory, so a test sees which base URL and tool-round limit each request used.
 */
import { DEFAULT_SUBAGENT_SETTINGS } from '../../../src/core/subagents/subagentSettings';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { LlmClient, LlmError, LlmEvent, LlmResult } from '../../../src/core/llm/llmClient';
import { AgentSession } from '../../../src/core/agent/agentSession';
import type { AssistantContent } from '../../../src/core/conversation/assistant';
import { Compactor } from '../../../src/core/compaction/compactor';
import type { PipelineConfig } from '../../../src/core/conversation/conversationModel';
import { DEFAULT_COMPACTION_SETTINGS } from '../../../src/core/compaction/policy';
import { counterIds } from '../../../src/core/platform/platformPorts';
import { resolveConfig, type PipelineSettings } from '../../../src/core/pipeline/config';
import { EMPTY_REQUEST_HISTORY } from '../../../src/core/session/requestHistory';
import { TokenEstimator } from '../../../src/core/tokens/estimator';
import type { ChatToWebview } from '../../../src/protocol/chat';
import { ChatService } from '../../../src/app/chatService';
import { LiveTransport } from '../../../src/app/liveTransport';
import type { AgentFactory, AgentSettings, SettingsPort } from '../../../src/app/ports';
import type { OpenSession, SessionPort } from '../../../src/app/sessionPort';
import { continuedItems, TranscriptRenderer } from '../../../src/host/chat/transcriptRenderer';
import { agentDeps } from './agentDeps';
import { fakeClock } from './builders';
import { Counter, Gate } from './gate';
import { FakeTools } from './scriptedLlm';
import { countingTokenizer } from './tokenFakes';

/** Settings the test changes at will; `change` applies a patch and fires the change signal. */
export class FakeSettings implements SettingsPort {
  pipeline: PipelineSettings = {};
  agentValue: AgentSettings = {
    baseUrl: 'https://one.example',
    enableRunCommand: false,
    maxToolRounds: 5,
    deferThreshold: 10_000,
  };
  private readonly listeners = new Set<() => void>();
  pipelineConfig = () => resolveConfig(this.pipeline);
  agent = () => this.agentValue;
  compaction = () => ({ ...DEFAULT_COMPACTION_SETTINGS, softAction: 'off' as const });
  editorContext = () => ({ selection: true, openedFile: true });
  subagents = () => DEFAULT_SUBAGENT_SETTINGS;
  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  /** Changes the settings as the user would, then tells the listeners. */
  change(patch: { agent?: Partial<AgentSettings>; pipeline?: PipelineSettings }): void {
    this.agentValue = { ...this.agentValue, ...patch.agent };
    this.pipeline = { ...this.pipeline, ...patch.pipeline };
    for (const l of [...this.listeners]) l();
  }
}

/** One request as the LLM saw it: the client's base URL and the limits in force. */
export interface SeenRequest {
  readonly baseUrl: string;
  readonly maxToolRounds: number;
  readonly model: string;
  readonly lastUserText: string;
}

/**
 * A scripted answer; `streamed`: text deltas sent as soon as the request starts; `hold` keeps
 * the request open (after them) until the gate opens.
 */
export interface Answer {
  readonly content: readonly AssistantContent[];
  readonly streamed?: readonly string[];
  readonly hold?: Gate;
}

/** An opened session whose close is recorded; `handoff`: the session it continues and the plan it starts with. */
function openSession(id: string, closed: string[], handoff?: Parameters<SessionPort['create']>[1]): OpenSession {
  return {
    id,
    ...(handoff ? { continuedFrom: handoff.continuedFrom } : {}),
    ...(handoff?.plan ? { plan: handoff.plan } : {}),
    messages: [],
    compactions: [],
    subagents: [],
    costUsd: 0,
    lastPromptTokens: 0,
    requestHistory: EMPTY_REQUEST_HISTORY,
    pastRequests: [],
    sink: {
      message: async () => undefined,
      usage: async () => undefined,
      compaction: async () => undefined,
      restore: async () => undefined,
      pins: async () => undefined,
    },
    repairs: [],
    close: async () => void closed.push(id),
  };
}

/** A session store whose loads can be held by a gate; records what it opened and closed. */
export class FakeSessions implements SessionPort {
  readonly closed: string[] = [];
  readonly created: string[] = [];
  /** Held loads by session id: `open(id)` waits for the gate. */
  readonly holds = new Map<string, Gate>();
  /** Loads that reached their gate. */
  readonly waiting = new Counter();
  /** Ids `open` refuses. */
  readonly missing = new Set<string>();
  /** What each handed-off session was created with, by its id. */
  readonly handoffs = new Map<string, NonNullable<Parameters<SessionPort['create']>[1]>>();
  private count = 0;
  async create(_model?: string, handoff?: Parameters<SessionPort['create']>[1]): Promise<OpenSession> {
    const id = `new-${++this.count}`;
    this.created.push(id);
    if (handoff) this.handoffs.set(id, handoff);
    await this.hold(id);
    return openSession(id, this.closed, handoff);
  }
  async createChild(): Promise<OpenSession> {
    const id = `child-${++this.count}`;
    this.created.push(id);
    return openSession(id, this.closed);
  }
  async saveTranscript(): Promise<{ ok: true }> {
    return { ok: true };
  }
  async transcript(id: string): Promise<{ ok: true; text: string }> {
    return { ok: true, text: `# ${id}` };
  }
  async openLatest(): Promise<OpenSession | undefined> {
    return undefined;
  }
  async open(id: string): Promise<{ ok: true; session: OpenSession } | { ok: false; error: string }> {
    await this.hold(id);
    return this.missing.has(id)
      ? { ok: false, error: `no session ${id}` }
      : { ok: true, session: openSession(id, this.closed) };
  }
  private async hold(id: string): Promise<void> {
    const gate = this.holds.get(id);
    if (!gate) return;
    this.waiting.bump();
    await gate.wait();
  }
}

/** A real AgentSession per session, its LLM client made per base URL by a recording factory. */
export class FakeAgents implements AgentFactory {
  readonly seen: SeenRequest[] = [];
  readonly answers: Answer[] = [];
  /** Base URLs a client was made for, in order. */
  readonly clientsMade: string[] = [];
  readonly requests = new Counter();
  readonly tools = new FakeTools({ list_files: 'a.ts' });
  /** Times a session's project context was read again. */
  projectReloads = 0;
  /** When set, a send waits for it before its project context is ready. */
  projectGate: Gate | undefined;
  /** Opens when a send starts waiting for its project context. */
  readonly projectWaited = new Gate();
  constructor(private readonly settings: FakeSettings) {}

  async build(open: OpenSession, config: PipelineConfig, hooks: Parameters<AgentFactory['build']>[2]) {
    const tokenizer = countingTokenizer();
    const estimator = new TokenEstimator(tokenizer);
    const clock = fakeClock();
    const ids = counterIds(open.id);
    const transport: LiveTransport = new LiveTransport((baseUrl) => {
      this.clientsMade.push(baseUrl);
      return this.client(baseUrl, () => transport.maxToolRounds);
    }, this.settings.agent());
    const compactor = new Compactor({
      summariser: transport.llm,
      clock,
      ids,
      tokensOf: (m) => JSON.stringify(m.blocks).length / 4,
      measure: (s) => estimator.estimate(s).tokens,
      settings: () => this.settings.compaction(),
      timeout: () => new Promise(() => undefined),
    });
    const agent = new AgentSession(
      {
        system: [],
        tools: [],
        messages: open.messages,
        pending: [],
        config,
        ...(open.plan ? { plan: open.plan } : {}),
      },
      agentDeps({
        llm: transport.llm,
        tools: this.tools,
        sink: open.sink,
        clock,
        ids,
        tokenizer,
        estimator,
        compactor,
        get maxToolRounds() {
          return transport.maxToolRounds;
        },
      }),
      hooks.onEvent,
      open.compactions,
    );
    const project = {
      load: async () => undefined,
      apply: () => false,
      ready: async () => {
        this.projectWaited.open();
        await this.projectGate?.wait();
        return [];
      },
      reload: async () => {
        this.projectReloads++;
        return [{ level: 'info' as const, text: `Project context read again (${this.projectReloads}).` }];
      },
    };
    return { agent, estimator, compactor, tokenizer, project, transport };
  }

  private client(baseUrl: string, maxToolRounds: () => number): LlmClient {
    return {
      stream: async (
        params: MessageCreateParamsNonStreaming,
        opts: { signal: AbortSignal; onEvent: (e: LlmEvent) => void },
      ): Promise<{ ok: true; result: LlmResult } | { ok: false; error: LlmError }> => {
        const last = params.messages.filter((m) => m.role === 'user').at(-1);
        const content = last?.content ?? '';
        const text =
          typeof content === 'string'
            ? content
            : content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ');
        this.seen.push({ baseUrl, maxToolRounds: maxToolRounds(), model: params.model, lastUserText: text });
        const answer = this.answers.shift() ?? { content: [{ type: 'text', text: 'ok' }] };
        this.requests.bump();
        opts.onEvent({ type: 'request_started', attempt: 1 });
        for (const text of answer.streamed ?? []) opts.onEvent({ type: 'text_delta', index: 0, text });
        await answer.hold?.wait();
        const toolUse = answer.content.some((c) => c.type === 'tool_use');
        return {
          ok: true,
          result: {
            content: answer.content,
            stopReason: toolUse ? 'tool_use' : 'end_turn',
            model: params.model,
            requestId: `req_${this.seen.length}`,
            usage: { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
          },
        };
      },
    };
  }
}

/**
 * A chat service over fakes, and the fakes to drive and inspect it. Its transcript is one
 * notice per message unless `realTranscript` (the host's TranscriptRenderer).
 */
export function fakeChat({ realTranscript = false }: { readonly realTranscript?: boolean } = {}) {
  const posts: ChatToWebview[] = [];
  const toasts: Array<{ level: 'info' | 'warn' | 'error'; text: string }> = [];
  const logLines: string[] = [];
  const settings = new FakeSettings();
  const sessions = new FakeSessions();
  const agents = new FakeAgents(settings);
  const figures: Array<{ promptTokens: number; window: number }> = [];
  /** The API key's status the service sees (set `keys.status` to 'missing' for a first run). */
  const keys: { status: 'secret-storage' | 'environment' | 'missing' } = { status: 'secret-storage' };
  /** The service, for the renderer's lead card (built before it). */
  const ref: { service?: ChatService } = {};
  const service = new ChatService({
    view: { post: (m) => void posts.push(m) },
    notifier: {
      info: (text) => void toasts.push({ level: 'info', text }),
      warn: (text) => void toasts.push({ level: 'warn', text }),
      error: (text) => void toasts.push({ level: 'error', text }),
    },
    log: {
      info: (t) => void logLines.push(t),
      warn: (t) => void logLines.push(t),
      error: (t) => void logLines.push(t),
    },
    settings,
    apiKeys: { status: async () => keys.status, problem: async () => undefined },
    sessions,
    agents,
    nextTurn: {
      take: () => ({ injections: [], settle: () => undefined }),
      pin: () => undefined,
      dismiss: () => undefined,
      chips: () => [],
    },
    toolSchemas: () => [],
    transcript: {
      renderer: (view, tokensOf) =>
        realTranscript
          ? new TranscriptRenderer(view, tokensOf, Date.now, undefined, undefined, undefined, undefined, () =>
              continuedItems(ref.service?.sessionLabel?.continuedFrom),
            )
          : {
              render: () => undefined,
              resync: (messages) =>
                view.post({
                  type: 'transcript',
                  items: messages.map((m) => ({
                    kind: 'notice' as const,
                    id: m.id,
                    level: 'info' as const,
                    text: m.role,
                  })),
                }),
            },
    },
    version: '0.0.0-test',
    clock: fakeClock(),
  });
  ref.service = service;
  service.onStatus.on((f) => void figures.push({ promptTokens: f.promptTokens, window: f.window }));
  return { service, posts, toasts, logLines, settings, sessions, agents, figures, keys };
}
