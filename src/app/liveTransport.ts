/**
 * What an agent takes from the settings when it is built — the LLM client (for the base URL)
 * and the tool-round limit — made swappable: the agent holds `llm` (which forwards to the
 * current client) and reads `maxToolRounds` per turn; `apply` swaps them, and the service calls
 * it only between turns, so a turn in flight finishes with the settings it started with.
 */
import type { LlmClient } from '../core/llm/llmClient';

/** The settings a transport is built from. */
export interface TransportSettings {
  readonly baseUrl: string;
  readonly maxToolRounds: number;
}

/** Holds the current client (made by `make` for a base URL) and tool-round limit. */
export class LiveTransport<C extends LlmClient = LlmClient> {
  private clientValue: C;
  private settingsValue: TransportSettings;
  /** Forwards every request to the client of the settings applied last. */
  readonly llm: LlmClient = { stream: (params, opts) => this.clientValue.stream(params, opts) };

  constructor(
    private readonly make: (baseUrl: string) => C,
    settings: TransportSettings,
  ) {
    this.settingsValue = settings;
    this.clientValue = make(settings.baseUrl);
  }

  /** The client of the current base URL. */
  get client(): C {
    return this.clientValue;
  }

  /** The current limit of tool rounds in one turn. */
  get maxToolRounds(): number {
    return this.settingsValue.maxToolRounds;
  }

  /** The settings applied last. */
  get settings(): TransportSettings {
    return this.settingsValue;
  }

  /** Takes `next`: a new client when the base URL changed. Returns the names of the settings that changed. */
  apply(next: TransportSettings): string[] {
    const changed: string[] = [];
    if (next.baseUrl !== this.settingsValue.baseUrl) {
      this.clientValue = this.make(next.baseUrl);
      changed.push('baseUrl');
    }
    if (next.maxToolRounds !== this.settingsValue.maxToolRounds) changed.push('maxToolRounds');
    this.settingsValue = { baseUrl: next.baseUrl, maxToolRounds: next.maxToolRounds };
    return changed;
  }
}
