/**
 * One exhaustive router per webview: a handler map keyed on the message type. The map's type
 * is a mapped type over the protocol union, so a message type without a handler is a compile
 * error; at run time every message is validated before any handler runs.
 */
import type { Parsed } from '../protocol/validate';

/** A handler for each message type of `M` (each receives its own narrowed message and `ctx`). */
export type Handlers<M extends { readonly type: string }, C = void> = {
  readonly [K in M['type']]: (message: Extract<M, { type: K }>, ctx: C) => void | Promise<void>;
};

/** What routing one raw message did: handled, or refused as invalid (no handler ran). */
export type Routed<M extends { readonly type: string }> =
  { readonly ok: true; readonly type: M['type'] } | { readonly ok: false; readonly error: string };

/**
 * Makes a router: validates `raw` with `parse`; an invalid message is refused (`onInvalid` is told
 * the reason and no handler runs), a valid one goes to exactly its type's handler. A handler's
 * rejection propagates to the caller (who reports it).
 */
export function createRouter<M extends { readonly type: string }, C = void>(
  parse: (raw: unknown) => Parsed<M>,
  handlers: Handlers<M, C>,
  onInvalid: (error: string) => void,
): (raw: unknown, ctx: C) => Promise<Routed<M>> {
  return async (raw, ctx) => {
    const parsed = parse(raw);
    if (!parsed.ok) {
      onInvalid(parsed.error);
      return { ok: false, error: parsed.error };
    }
    const message = parsed.value;
    // The mapped type guarantees the handler of message.type takes exactly this message.
    const handler = handlers[message.type as M['type']] as (m: M, c: C) => void | Promise<void>;
    await handler(message, ctx);
    return { ok: true, type: message.type };
  };
}
