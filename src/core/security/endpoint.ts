/**
 * Where requests (and with them the API key) go, decided by parsing the base URL with the
 * WHATWG URL parser — the one the SDK's fetch uses — never by a regular expression over the
 * text. Pure: no I/O.
 */

/** The only origin that is Anthropic's API. */
export const ANTHROPIC_ORIGIN = 'https://api.anthropic.com';

/** The class of a base URL. */
export type Endpoint =
  /** Anthropic's API (the default when no base URL is set). */
  | { readonly kind: 'anthropic'; readonly origin: string }
  /** A server on this machine (loopback host, no credentials in the URL): the scripted test server or a local proxy. */
  | { readonly kind: 'local'; readonly origin: string }
  /** Anything else: the key goes to a server that is not Anthropic's. `why` says what makes it suspect, if anything. */
  | { readonly kind: 'remote'; readonly origin: string; readonly why?: string }
  /** Not a usable http(s) URL: nothing may be sent. */
  | { readonly kind: 'invalid'; readonly reason: string };

/**
 * Classifies a base URL. Empty → Anthropic. `local` only for the loopback hosts
 * `localhost`, `127.0.0.0/8` (in any notation the URL parser accepts) and `[::1]`, and only
 * when the URL carries no user name or password; `anthropic` only for exactly
 * `https://api.anthropic.com` (any path, no credentials). A trailing dot, a look-alike
 * subdomain (`localhost.attacker.example`) or userinfo (`https://localhost@attacker.example`)
 * is `remote`. Whitespace, control characters and backslashes make a URL `invalid`, as does
 * any scheme but http(s).
 */
export function classifyBaseUrl(raw: string): Endpoint {
  const text = raw.trim();
  if (text === '') return { kind: 'anthropic', origin: ANTHROPIC_ORIGIN };

  if (/[\s\u0000-\u001f\u007f-\u009f\\]/.test(text))
    return { kind: 'invalid', reason: 'it contains spaces, control characters or backslashes' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { kind: 'invalid', reason: 'it is not a URL (expected e.g. http://127.0.0.1:8787)' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { kind: 'invalid', reason: `only http and https are supported, not ${url.protocol.replace(/:$/, '')}` };
  if (url.hostname === '') return { kind: 'invalid', reason: 'it names no host' };
  const origin = url.origin;
  if (url.username !== '' || url.password !== '')
    return {
      kind: 'remote',
      origin,
      why: 'the URL carries a user name or password, so where it points is not what it first looks like',
    };
  if (origin === ANTHROPIC_ORIGIN) return { kind: 'anthropic', origin };
  if (isLoopbackHost(url.hostname)) return { kind: 'local', origin };
  return url.protocol === 'http:'
    ? { kind: 'remote', origin, why: 'plain http: the key travels unencrypted' }
    : { kind: 'remote', origin };
}

/** Whether a hostname, as the URL parser normalised it, is a loopback address: `localhost`, 127.0.0.0/8 or `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  return m !== null && m[1] === '127' && m.slice(2).every((p) => Number(p) <= 255);
}

/**
 * The sentence the chat header shows while requests go anywhere but Anthropic's API;
 * undefined for Anthropic's API.
 */
export function endpointNotice(e: Endpoint): string | undefined {
  switch (e.kind) {
    case 'anthropic':
      return undefined;
    case 'local':
      return `Offline: requests go to the local server at ${e.origin} — not Anthropic's API.`;
    case 'remote':
      return `Requests go to ${e.origin} — not Anthropic's API. Your API key is sent there with every request${e.why ? ` (${e.why})` : ''}.`;
    case 'invalid':
      return `contextPipeline.baseUrl is not usable: ${e.reason}. Nothing is sent until it is fixed in your user settings.`;
  }
}

/** What the chat header shows about the endpoint: nothing for Anthropic's API. */
export interface EndpointBanner {
  readonly kind: 'local' | 'remote' | 'invalid';
  readonly notice: string;
}

/** The header banner for a base URL (see endpointNotice); undefined for Anthropic's API. */
export function endpointBanner(baseUrl: string): EndpointBanner | undefined {
  const e = classifyBaseUrl(baseUrl);
  const notice = endpointNotice(e);
  return e.kind === 'anthropic' || notice === undefined ? undefined : { kind: e.kind, notice };
}

/** `{ endpoint }` with the banner for `baseUrl`, or `{}` for Anthropic's API (spread into a status message). */
export function withEndpointBanner(baseUrl: string): { endpoint?: EndpointBanner } {
  const banner = endpointBanner(baseUrl);
  return banner ? { endpoint: banner } : {};
}
