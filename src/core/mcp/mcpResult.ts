/**
 * An MCP `CallToolResult` → the ToolExecution the pipeline carries (toolDefinition.ts):
 * text → text; an image in a type the API takes (png, jpeg, gif, webp) → an image part, else
 * a note; audio → a note; an embedded resource → its text, or a note with its type and size for
 * a blob; a resource link → a line with its name and uri; `structuredContent` → its JSON when
 * no text came; `isError` kept. The result is untrusted and read defensively (anything
 * unexpected becomes a note). Tag neutralising of the text happens where every tool result
 * is assembled (core/agent/toolRound.ts). Pure.
 */
import type { ImageMediaType, ToolResultContent } from '../conversation/conversationModel';
import { formatBytes } from '../platform/text';
import type { ToolExecution } from '../tools/toolDefinition';

type Part = Exclude<ToolResultContent, string>[number];

const API_IMAGE_TYPES: readonly string[] = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
] satisfies ImageMediaType[];

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function str(x: unknown): string | undefined {
  return typeof x === 'string' ? x : undefined;
}

/** Bytes a base64 string decodes to. */
function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, '');
  const pad = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - pad);
}

/** One content item → a part. */
function convertItem(item: unknown): Part {
  if (!isRecord(item)) return { type: 'text', text: '[MCP content that is not an object]' };
  const type = str(item.type) ?? '?';
  if (type === 'text') return { type: 'text', text: str(item.text) ?? '' };
  if (type === 'image' || type === 'audio') {
    const mime = (str(item.mimeType) ?? 'unknown type').toLowerCase();
    const data = str(item.data) ?? '';
    if (type === 'image' && API_IMAGE_TYPES.includes(mime) && data !== '')
      return { type: 'image', mediaType: mime as ImageMediaType, data: data.replace(/\s/g, '') };
    return {
      type: 'text',
      text: `[${type} (${mime}, ${formatBytes(base64Bytes(data))}) not shown: the model cannot take it]`,
    };
  }
  if (type === 'resource') {
    const r = isRecord(item.resource) ? item.resource : {};
    const uri = str(r.uri) ?? '(no uri)';
    const text = str(r.text);
    if (text !== undefined) return { type: 'text', text };
    const blob = str(r.blob) ?? '';
    return {
      type: 'text',
      text: `[binary resource ${uri} (${str(r.mimeType) ?? 'unknown type'}, ${formatBytes(base64Bytes(blob))}) not shown]`,
    };
  }
  if (type === 'resource_link') {
    const name = str(item.name) ?? str(item.title) ?? 'resource';
    const mime = str(item.mimeType);
    return { type: 'text', text: `Resource link: ${name} — ${str(item.uri) ?? '(no uri)'}${mime ? ` (${mime})` : ''}` };
  }
  return { type: 'text', text: `[MCP content of type "${type}" not shown]` };
}

/** Adjacent text parts joined by a blank line (fewer blocks for the model). */
function mergeTexts(parts: readonly Part[]): Part[] {
  const out: Part[] = [];
  for (const p of parts) {
    const prev = out[out.length - 1];
    if (p.type === 'text' && prev?.type === 'text')
      out[out.length - 1] = { type: 'text', text: `${prev.text}\n\n${p.text}` };
    else out.push(p);
  }
  return out;
}

/** The ToolExecution of an MCP tool's result (anything the server sent; never throws). */
export function mcpResultToExecution(result: unknown): ToolExecution {
  const r = isRecord(result) ? result : {};
  const isError = r.isError === true;
  const items = Array.isArray(r.content) ? r.content : [];
  const parts = items.map(convertItem);
  const hasText = parts.some((p) => p.type === 'text' && p.text !== '');
  if (!hasText && r.structuredContent !== undefined) {
    let json: string;
    try {
      json = JSON.stringify(r.structuredContent, null, 2) ?? 'null';
    } catch {
      json = '[structured content that cannot be shown as JSON]';
    }
    parts.unshift({ type: 'text', text: json });
  }
  const merged = mergeTexts(parts.filter((p) => p.type !== 'text' || p.text !== ''));
  if (merged.length === 0) return { content: isError ? 'The tool failed without a message.' : '(no output)', isError };
  const only = merged[0];
  if (merged.length === 1 && only?.type === 'text') return { content: only.text, isError };
  return { content: merged, isError };
}
