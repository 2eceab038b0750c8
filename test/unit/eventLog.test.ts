import { strict as assert } from 'node:assert';
import { logEvent } from '../../src/app/eventLog';
import type { LogPort } from '../../src/app/ports';
import type { Repair } from '../../src/core/normalize/normalize';

function recorder(): LogPort & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (t: string) => void lines.push(`info ${t}`),
    warn: (t: string) => void lines.push(`warn ${t}`),
    error: (t: string) => void lines.push(`error ${t}`),
  };
}

const unbound: Repair = {
  kind: 'thinking_unbound',
  messageId: 'm1',
  detail: 'A thinking block of message m1 was left out.',
};
const orphan: Repair = {
  kind: 'tool_result_orphan',
  messageId: 'm2',
  detail: 'A tool result without its call became text.',
};

describe('event log: repairs before a request', () => {
  it('warns with details for a damaged state, says thinking left out after a compaction on one info line', () => {
    const log = recorder();
    logEvent(
      {
        type: 'request_started',
        round: 1,
        attempt: 1,
        estimatedTokens: 10,
        anchored: false,
        repairs: [orphan, unbound],
      },
      log,
    );
    logEvent(
      {
        type: 'request_started',
        round: 2,
        attempt: 1,
        estimatedTokens: 10,
        anchored: false,
        repairs: [unbound, unbound],
      },
      log,
    );
    logEvent(
      { type: 'request_started', round: 2, attempt: 2, estimatedTokens: 10, anchored: false, repairs: [orphan] },
      log,
    );
    assert.deepEqual(log.lines, [
      'warn Repaired before sending: 1 tool result without its call sent as text, 1 thinking block after a change to the context left out. A tool result without its call became text. A thinking block of message m1 was left out.',
      'info Repaired before sending: 2 thinking blocks after a change to the context left out.',
    ]);
  });
});

describe('event log: a request cut off mid-answer', () => {
  it('says so on its usage line, with the prompt the API reported and its cost', () => {
    const log = recorder();
    const usage = {
      input_tokens: 12,
      output_tokens: 10,
      cache_read_input_tokens: 4000,
      cache_creation_input_tokens: 80,
    };
    const base = {
      type: 'usage' as const,
      usage,
      model: 'claude-sonnet-4-6',
      costUsd: 0.0017,
      estimatedTokens: 4100,
      reportedTokens: 4092,
    };
    logEvent({ ...base, cut: true }, log);
    logEvent({ ...base, requestId: 'req_1' }, log);
    assert.deepEqual(log.lines, [
      'info Request cut off mid-answer (its output estimated): 4092 prompt tokens reported (estimated 4100), $0.0017.',
      'info Request req_1: 4092 prompt tokens reported (estimated 4100), $0.0017.',
    ]);
  });
});

describe('event log: a summary cut short', () => {
  it('says what it cost and on which model, or that its price is unknown', () => {
    const log = recorder();
    logEvent({ type: 'summary_spend', model: 'claude-haiku-4-5', costUsd: 0.033 }, log);
    logEvent({ type: 'summary_spend', model: 'claude-future-9', costUsd: undefined }, log);
    assert.deepEqual(log.lines, [
      'info A summary cut short (stopped or timed out) had cost $0.0330 on claude-haiku-4-5; billed with the summaries.',
      'info A summary cut short (stopped or timed out) had cost an unknown amount (its price is not known) on claude-future-9; billed with the summaries.',
    ]);
  });
});
