/**
 * A long chat of short messages, as a transcript (the format of test/fixtures/): `turns` turns,
 * each a user message of about `chars` characters of prose (distinct words, so nothing
 * compresses) and an answer, with usage records whose prompt sizes grow as a real session's
 * would (about 4 characters a token, plus a constant system prompt). No message is long
 * enough for the tail guard to cut: only leaving the oldest out keeps such a session in the
 * window, since every compaction keeps the user's words.
 */
export function chattySession(turns: number, chars: number, answerChars = 400): string {
  const SYSTEM_TOKENS = 6_000;
  const lines: string[] = [];
  let tokens = SYSTEM_TOKENS;
  let at = Date.parse('2026-01-15T10:00:00.000Z');
  const prose = (seed: number, n: number) => {
    const words: string[] = [];
    for (let i = 0; words.join(' ').length < n; i++) words.push(`w${seed.toString(36)}x${i.toString(36)}`);
    return words.join(' ').slice(0, n);
  };
  for (let t = 0; t < turns; t++) {
    const user = `Message ${t}: ${prose(t, chars)}`;
    lines.push(JSON.stringify({ kind: 'message', message: { role: 'user', content: [{ type: 'text', text: user }] } }));
    tokens += Math.ceil(user.length / 4);
    at += 30_000;
    const answer = `Answer ${t}: ${prose(100_000 + t, answerChars)}`;
    lines.push(
      JSON.stringify({
        kind: 'usage',
        model: 'claude-sonnet-4-5',
        at: new Date(at).toISOString(),
        usage: {
          input_tokens: tokens,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
          output_tokens: Math.ceil(answer.length / 4),
        },
      }),
    );
    lines.push(
      JSON.stringify({ kind: 'message', message: { role: 'assistant', content: [{ type: 'text', text: answer }] } }),
    );
    tokens += Math.ceil(answer.length / 4);
  }
  return `${lines.join('\n')}\n`;
}
