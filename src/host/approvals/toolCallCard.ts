/**
 * The chat item that asks before an MCP tool runs: the server, the tool, its whole
 * description (untrusted: shown so a poisoned one can be seen, never followed) and the input
 * as indented JSON, capped. Pure: no VS Code.
 */
import { headChars } from '../../core/platform/text';
import type { ToolCallProposal } from './approval';
import type { ApprovalItem } from './approvalCard';

/** Characters of the input's JSON a card carries at most. */
export const MAX_CARD_INPUT_CHARS = 8_000;
/** Characters of a tool's description a card carries at most. */
export const MAX_CARD_DESCRIPTION_CHARS = 4_000;

/** The approval card of an MCP tool's call. */
export function toolCallApprovalItem(id: string, p: ToolCallProposal): ApprovalItem {
  return {
    kind: 'approval',
    id,
    tool: 'mcp',
    subject: clip(inputJson(p.input), MAX_CARD_INPUT_CHARS),
    detail: `${p.tool} · MCP server ${p.server}`,
    state: 'pending',
    mcp: {
      server: p.server,
      tool: p.tool,
      description: clip(p.description, MAX_CARD_DESCRIPTION_CHARS),
      readOnly: p.readOnly,
    },
  };
}

function inputJson(input: unknown): string {
  try {
    return JSON.stringify(input, null, 2) ?? String(input);
  } catch {
    return String(input);
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${headChars(text, max - 1)}…` : text;
}
