/**
 * The read-only documents of the Compactions view (scheme `context-pipeline-record`): a
 * record's replacement and its original messages, and their URIs. The URI's path is what the
 * tab shows (its last segment), so it is the document's readable title — `Turn 2 · Read
 * src∕a.ts.md`, `Summary · turns 1–2.md` — under the record's id, which keeps it unique; the
 * query says which document it is. Plain text (no `vscode`), so it is unit-tested.
 */
import { describeServerBlock } from '../core/conversation/serverTools';
import { summariesCost } from '../core/compaction/health';
import { formatUsd } from '../core/llm/cost';
import { describeReattached } from '../core/compaction/reattach';
import { describeIndexed } from '../core/compaction/fileIndex';
import { indexedFilesOf } from '../core/compaction/reattachRecord';
import type { CompactionRecord } from '../core/compaction/types';
import type { Message } from '../core/conversation/conversationModel';
import { headChars } from '../core/platform/text';

/** Characters of a title a document's path keeps. */
const TITLE_CHARS = 100;

/** Which document of a record a URI names: its replacement, or one original message. */
export type RecordDocument =
  | { readonly recordId: string; readonly what: 'summary' }
  | { readonly recordId: string; readonly what: 'message'; readonly messageId: string };

/**
 * The path and query of a record document's URI: `/<record id>/<title>.md` — the title on one
 * line, its slashes drawn as `∕` (a slash would make only its tail the tab's title), clipped —
 * and `summary` or `message=<id>`.
 */
export function recordDocumentUri(doc: RecordDocument, title: string): { path: string; query: string } {
  const flat = title.replace(/\s+/g, ' ').replace(/\//g, '\u2215').replace(/\\/g, '\u29f5').trim();
  const shown = flat.length <= TITLE_CHARS ? flat : `${headChars(flat, TITLE_CHARS - 1).trimEnd()}…`;
  return {
    path: `/${encodeSegment(doc.recordId)}/${shown || 'Untitled'}.md`,
    query: doc.what === 'summary' ? 'summary' : `message=${encodeURIComponent(doc.messageId)}`,
  };
}

/** The document a URI's path and query name; undefined for a URI this scheme never made. */
export function parseRecordDocument(path: string, query: string): RecordDocument | undefined {
  const recordId = path.replace(/^\//, '').split('/')[0];
  if (!recordId) return undefined;
  if (query === 'summary') return { recordId, what: 'summary' };
  const m = /^message=(.+)$/.exec(query);
  return m?.[1] ? { recordId, what: 'message', messageId: decodeURIComponent(m[1]) } : undefined;
}

function encodeSegment(id: string): string {
  return id.replace(/[/\\]/g, '_');
}

/** The document of what stands in place of a record's originals, with the record's figures. */
export function summaryDocument(r: CompactionRecord): string {
  const lines = [
    `# Compaction ${r.id}`,
    '',
    `- Trigger: ${r.trigger} · layer: ${r.layer} · strategy: ${r.strategy}`,
    `- Tokens: ${fmt(r.tokensBefore)} → ${fmt(r.tokensAfter)}`,
    `- When: ${new Date(r.at).toISOString()}`,
  ];
  if (r.model) lines.push(`- Summariser: ${r.model} · ${formatUsd(summariesCost([r]))} · ${r.durationMs} ms`);
  if (r.instructions) lines.push(`- Instructions: ${r.instructions}`);
  if (r.fallbacks.length) lines.push(`- Fallbacks: ${r.fallbacks.join('; ')}`);
  if (r.carriedPlan)
    lines.push(
      `- Plan carried: ${r.carriedPlan.completed} of ${r.carriedPlan.steps} steps done (${fmt(r.carriedPlan.tokens)} tokens)`,
    );
  if (r.reattached?.length) lines.push(`- Re-attached: ${describeReattached(r.reattached)}`);
  const named = indexedFilesOf(r);
  if (named.length) lines.push(`- Also named (path only): ${describeIndexed(named)}`);
  if (r.retention)
    lines.push(
      `- Retention check: ${Math.round(r.retention.retained * 100)}% of identifiers kept${r.retention.lost.length ? `; lost: ${r.retention.lost.join(', ')}` : ''}`,
    );
  lines.push('', '## What stands in place of the originals', '');
  for (const m of r.replacement) lines.push(messageDocument(m), '');
  return lines.join('\n');
}

/** The document of one message: its blocks in Markdown (tool calls as JSON, results fenced). */
export function messageDocument(m: Message): string {
  const out = [`### ${m.role} · turn ${m.turn} · ${m.id}`, ''];
  for (const b of m.blocks) {
    switch (b.type) {
      case 'text':
      case 'summary':
        out.push(b.text, '');
        break;
      case 'thinking':
        out.push('_(thinking)_', b.thinking, '');
        break;
      case 'tool_use':
        out.push(`**Tool call** \`${b.name}\` (${b.id})`, '```json', JSON.stringify(b.input, null, 2), '```', '');
        break;
      case 'tool_result':
        out.push(
          `**Tool result** for ${b.toolUseId}${b.isError ? ' (error)' : ''}`,
          '```',
          typeof b.content === 'string'
            ? b.content
            : b.content.map((p) => (p.type === 'text' ? p.text : `[image ${p.mediaType}]`)).join('\n'),
          '```',
          '',
        );
        break;
      case 'image':
        out.push(`[image ${b.mediaType}]`, '');
        break;
      case 'server_tool':
        out.push(`**Server tool** ${describeServerBlock(b)}`, '');
        break;
    }
  }
  return out.join('\n');
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
