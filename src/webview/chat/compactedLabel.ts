/**
 * The one-line title of a compacted group: what the rounds a compaction replaced held, in
 * words ("40 tool calls · 3 answers · 2 of your messages · summarised"). Pure.
 */
export function compactedLabel(counts: {
  readonly toolCalls: number;
  readonly answers: number;
  readonly userMessages: number;
  readonly summaries: number;
}): string {
  const n = (count: number, one: string, many: string) => (count === 0 ? [] : [`${count} ${count === 1 ? one : many}`]);
  const parts = [
    ...n(counts.userMessages, 'message from you', 'messages from you'),
    ...n(counts.answers, 'answer', 'answers'),
    ...n(counts.toolCalls, 'tool call', 'tool calls'),
    ...n(counts.summaries, 'earlier summary', 'earlier summaries'),
  ];
  return `${parts.length > 0 ? parts.join(' · ') : 'Earlier messages'} · summarised`;
}
