import type Anthropic from '@anthropic-ai/sdk';
import { startFakeAnthropic, type FakeAnthropic, type FakeAnthropicOptions } from '../../fake-anthropic';
import { clientFor } from '../../fake-anthropic/testkit';

/** The fake server of a mocha suite and an SDK client pointed at it (read them inside tests). */
export interface FakeServerFixture {
  readonly server: FakeAnthropic;
  readonly client: Anthropic;
}

/**
 * Registers mocha hooks in the calling `describe`: starts one fake Anthropic server (with
 * `options`) and an SDK client for it before the suite, resets the server (script, records,
 * cache, window) before each test, and closes it after the suite. Reading `server` or `client`
 * before the suite's `before` hook ran throws.
 */
export function useFakeAnthropic(options: FakeAnthropicOptions = {}): FakeServerFixture {
  let server: FakeAnthropic | undefined;
  let client: Anthropic | undefined;
  before(async () => {
    server = await startFakeAnthropic(options);
    client = clientFor(server);
  });
  after(() => server?.close());
  beforeEach(() => server?.reset());
  return {
    get server() {
      if (!server) throw new Error('the fake server is not started yet (read it inside a test)');
      return server;
    },
    get client() {
      if (!client) throw new Error('the fake server is not started yet (read it inside a test)');
      return client;
    },
  };
}
