/**
 * The boundary check of what a server answered: the SDK types the final message, but does not
 * check it, and a proxy or a hostile endpoint can send any JSON (a `text` that is a number, no
 * `usage`): read as typed, such an answer failed deep in the pipeline as a raw JavaScript
 * error (`c.text.trim is not a function`) and was reported as a network failure. Each field the
 * pipeline reads is checked here (valibot), and a malformed answer becomes a
 * {@link MalformedAnswerError} that the client reports as what it is.
 */
import * as v from 'valibot';

const count = v.pipe(v.number(), v.finite(), v.minValue(0));
const optionalCount = v.optional(v.nullable(count));

/** The content blocks the pipeline reads, by type (SDK ContentBlock / BetaContentBlock); others pass as they are. */
const BLOCKS: Readonly<Record<string, v.GenericSchema>> = {
  text: v.looseObject({ text: v.string() }),
  tool_use: v.looseObject({ id: v.string(), name: v.string(), input: v.record(v.string(), v.unknown()) }),
  thinking: v.looseObject({ thinking: v.string(), signature: v.string() }),
  redacted_thinking: v.looseObject({ data: v.string() }),
  compaction: v.looseObject({
    content: v.nullable(v.string()),
    signature: v.optional(v.nullable(v.string())),
    tool_changes: v.optional(v.nullable(v.array(v.looseObject({ type: v.string() })))),
  }),
};

const Block = v.pipe(
  v.looseObject({ type: v.string() }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const schema = BLOCKS[dataset.value.type];
    if (!schema) return;
    const r = v.safeParse(schema, dataset.value);
    if (!r.success) {
      const issue = r.issues[0];
      const field = issue.path?.map((p) => String(p.key)).join('.') ?? '';
      addIssue({ message: `a ${dataset.value.type} block's ${field || 'fields'}: ${issue.message}` });
    }
  }),
);

const FinalMessage = v.looseObject({
  model: v.string(),
  content: v.array(Block),
  stop_reason: v.nullish(v.string()),
  usage: v.looseObject({
    input_tokens: count,
    output_tokens: count,
    cache_read_input_tokens: optionalCount,
    cache_creation_input_tokens: optionalCount,
    cache_creation: v.optional(
      v.nullable(v.looseObject({ ephemeral_5m_input_tokens: optionalCount, ephemeral_1h_input_tokens: optionalCount })),
    ),
  }),
});

/** A server's answer that does not have the Messages API's shape; `message` says which field. */
export class MalformedAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedAnswerError';
  }
}

/**
 * Undefined when `final` has every field the pipeline reads, with its type; else what is wrong,
 * in words (`content.0.text: expected a string`).
 */
export function answerShapeProblem(final: unknown): string | undefined {
  const r = v.safeParse(FinalMessage, final);
  if (r.success) return undefined;
  const issue = r.issues[0];
  const path = issue.path?.map((p) => String(p.key)).join('.') ?? '';
  return `${path ? `${path}: ` : ''}${issue.message}`;
}

/**
 * Whether an error thrown while the SDK read a stream (itself, or as the `cause` of the SDK's
 * wrapper) is its parser tripping on a malformed event — a TypeError of property access or
 * call (`Cannot read properties of undefined (reading 'input_tokens')`, `… is not a function`)
 * — not the connection (undici's `terminated`, `fetch failed`, which are TypeErrors too).
 */
export function isShapeError(err: unknown): boolean {
  // The SDK's MessageStream wraps what its handlers throw in an AnthropicError, the original as `cause`.
  const cause = err instanceof Error && !(err instanceof TypeError) ? (err as { cause?: unknown }).cause : err;
  return (
    cause instanceof TypeError &&
    /cannot (read|set) propert|is not a function|is not iterable|cannot convert undefined or null|of undefined|of null/i.test(
      cause.message,
    )
  );
}
