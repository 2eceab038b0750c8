// Session files for the e2e tests: where the extension keeps them, putting one there before
// VS Code starts, and building one with the extension's own code (assembly, answers, the
// session codec), so a resumed session is exactly what the extension would have written.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The extension's session storage in a world's user data folder.
 * @param {{ userData: string }} dirs
 * @returns {string}
 */
export function sessionsDir(dirs) {
  return join(dirs.userData, 'User', 'globalStorage', 'context-pipeline.context-pipeline', 'sessions');
}

/**
 * Writes `session` into the session storage of `dirs` (as `prepare` does, before VS Code
 * starts: opening the chat resumes it) and returns the storage folder.
 * @param {{ userData: string }} dirs
 * @param {{ file: string, content: string }} session
 * @returns {string}
 */
export function installSession(dirs, session) {
  const dir = sessionsDir(dirs);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, session.file), session.content, { mode: 0o600 });
  return dir;
}

/**
 * A session being built message by message with the extension's own code, an hour ago, 5 s
 * between messages. `user` assembles a user message (words or tool results), `assistant`
 * appends an answer; `file` encodes the header and every message as a session file.
 * @param {string} tag prefix of the ids
 */
export async function sessionBuilder(tag) {
  const { assembleUserMessage, applyUserMessage } = await import('../../src/core/conversation/assemble.ts');
  const { appendAssistantMessage } = await import('../../src/core/conversation/assistant.ts');
  const { resolveConfig } = await import('../../src/core/pipeline/config.ts');
  const { counterIds } = await import('../../src/core/platform/platformPorts.ts');
  const { encodeEntry, SESSION_FORMAT, SESSION_VERSION } = await import('../../src/core/session/entries.ts');
  const { newSessionId } = await import('../../src/host/sessions/sessionStore.ts');
  const config = resolveConfig({});
  if (!config.ok) throw new Error(config.error);
  const start = Date.now() - 3_600_000;
  let t = start;
  const clock = { now: () => t };
  const ids = counterIds(tag);
  /** @type {import('../../src/core/conversation/conversationModel.ts').ConversationState} */
  let state = { system: [], tools: [], messages: [], pending: [], config: config.config };
  /** @type {import('../../src/core/session/entries.ts').SessionEntry[]} */
  const entries = [];
  return {
    /** @param {Omit<import('../../src/core/conversation/assemble.ts').TurnInput, 'pasteDirectory'>} input */
    user(input) {
      t += 5_000;
      const u = assembleUserMessage(state, { ...input, pasteDirectory: '/nonexistent' }, { clock, ids });
      if (!u.ok) throw new Error(u.error.message);
      state = applyUserMessage(state, u.value);
      entries.push({ type: 'message', at: t, message: u.value.message });
    },
    /** @param {import('../../src/core/conversation/assistant.ts').AssistantContent[]} content */
    assistant(content) {
      t += 5_000;
      const a = appendAssistantMessage(state, content, { clock, ids });
      if (!a.ok) throw new Error(a.error);
      state = a.state;
      entries.push({ type: 'message', at: t, message: a.message });
    },
    /**
     * The session file: its name and content.
     * @param {string} model the header's model
     * @returns {{ file: string, content: string }}
     */
    file(model) {
      const sessionId = newSessionId(start, 0.5);
      /** @type {import('../../src/core/session/entries.ts').HeaderEntry} */
      const header = {
        type: 'header',
        format: SESSION_FORMAT,
        version: SESSION_VERSION,
        sessionId,
        createdAt: start,
        model,
        workspace: 'workspace',
      };
      return { file: `${sessionId}.jsonl`, content: `${[header, ...entries].map((e) => encodeEntry(e)).join('\n')}\n` };
    },
  };
}
