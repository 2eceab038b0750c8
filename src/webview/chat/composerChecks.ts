/**
 * What the composer checks in typed text before it sends it: the slash commands (and their
 * completions) and the protocol's limits. Pure, so the rules are tested without a DOM.
 */
import { MAX_SLASH_ARG } from '../../protocol/chat';
import { MAX_WEBVIEW_STRING } from '../../protocol/validate';

/** The chat's slash commands, with what they do (shown as completions). */
export const SLASH_COMMANDS = [
  { name: 'compact', hint: '/compact [instructions] — summarise older turns now' },
  { name: 'new', hint: '/new — start a new session' },
  { name: 'pin', hint: '/pin — pin the editor selection (never compacted)' },
  { name: 'handoff', hint: '/handoff [words] — continue in a new session from a handoff note' },
] as const;

/** The name of one slash command. */
type SlashName = (typeof SLASH_COMMANDS)[number]['name'];

/** A typed slash command, or undefined when the text is a normal message. */
export function parseSlash(text: string): { name: SlashName; arg: string } | undefined {
  const m = /^\/(compact|new|pin|handoff)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return m ? { name: m[1] as SlashName, arg: (m[2] ?? '').trim() } : undefined;
}

/**
 * Why `text` cannot be sent as typed (the protocol's limits, checked before the box is
 * cleared so nothing is lost), or undefined when it can.
 */
export function sendProblem(text: string): string | undefined {
  if (text.length > MAX_WEBVIEW_STRING)
    return `This message has ${text.length.toLocaleString('en-US')} characters; the chat takes at most ${MAX_WEBVIEW_STRING.toLocaleString('en-US')}. Save it to a file in the workspace and ask Claude to read it.`;
  const slash = parseSlash(text);
  if (slash && slash.arg.length > MAX_SLASH_ARG)
    return `/${slash.name} takes at most ${MAX_SLASH_ARG.toLocaleString('en-US')} characters of instructions (these have ${slash.arg.length.toLocaleString('en-US')}).`;
  return undefined;
}
