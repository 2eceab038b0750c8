import { strict as assert } from 'node:assert';
import type { TextBlock } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import {
  agentSystemPrompt,
  sessionSystemPrompt,
  STATIC_SYSTEM_PROMPT,
} from '../../src/core/projectContext/staticPrompt';
import { abortableSleep } from '../../src/host/abortableSleep';
import { fakeClock } from './support/builders';

const block = (id: string, source: TextBlock['meta']['source'], text: string): TextBlock => ({
  type: 'text',
  text,
  meta: { id, tier: 0, source, createdAt: 0, pinned: true, compactable: false },
});

describe('the session system prompt (one builder)', () => {
  it('is the static prompt alone before the project context is read', () => {
    const clock = fakeClock(5);
    const system = sessionSystemPrompt({ clock, ids: counterIds('a') });
    const alone = agentSystemPrompt({ clock, ids: counterIds('a') });
    assert.deepEqual(system, [alone]);
    assert.equal(system[0]?.text, STATIC_SYSTEM_PROMPT);
  });

  it('puts the project context after it in cache order (instructions, then the facts)', () => {
    const facts = block('f', 'workspace', '<workspace_facts/>');
    const rules = block('i', 'instructions', '<project_instructions/>');
    const system = sessionSystemPrompt({ clock: fakeClock(), ids: counterIds('b') }, [facts, rules]);
    assert.deepEqual(
      system.map((b) => b.meta.source),
      ['system', 'instructions', 'workspace'],
    );
  });
});

describe('abortableSleep (one abortable timeout)', () => {
  it('rejects at once when the signal already aborted', async () => {
    const c = new AbortController();
    c.abort();
    await assert.rejects(abortableSleep(60_000, c.signal), /aborted/);
  });

  it('rejects when the signal aborts while waiting (the long timer does not hold the test)', async () => {
    const c = new AbortController();
    const slept = abortableSleep(60_000, c.signal);
    c.abort();
    await assert.rejects(slept, /aborted/);
  });

  it('resolves when the time is up, and a later abort changes nothing (its listener is gone)', async () => {
    const c = new AbortController();
    const listeners = new Set<unknown>();
    const add = c.signal.addEventListener.bind(c.signal);
    const remove = c.signal.removeEventListener.bind(c.signal);
    c.signal.addEventListener = ((
      type: string,
      fn: EventListenerOrEventListenerObject,
      o?: AddEventListenerOptions,
    ) => {
      listeners.add(fn);
      add(type, fn, o);
    }) as AbortSignal['addEventListener'];
    c.signal.removeEventListener = ((type: string, fn: EventListenerOrEventListenerObject) => {
      listeners.delete(fn);
      remove(type, fn);
    }) as AbortSignal['removeEventListener'];
    let settled: string | undefined;
    const slept = abortableSleep(0, c.signal).then(
      () => (settled = 'resolved'),
      () => (settled = 'rejected'),
    );
    assert.equal(listeners.size, 1, 'it listens while it waits');
    await slept;
    assert.equal(settled, 'resolved');
    assert.equal(listeners.size, 0, 'the listener is removed once the time is up');
    c.abort();
    await Promise.resolve();
    assert.equal(settled, 'resolved', 'an abort after the time is up changes nothing');
  });
});
