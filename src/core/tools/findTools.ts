/**
 * `find_tools`: the client-side tool search for models without the API's tool search
 * (toolLoading.ts `search: 'client'`). The model asks with a regular expression or keywords;
 * the tool answers with the names and descriptions of the matching deferred tools and marks
 * them loaded, so the plan sends their definitions from the next request on. Pure: it works on
 * the data the session gives it (the deferred tools, and where to record what it loaded).
 *
 * Effect `external`, not `search`: `search` means a search of the workspace to snip, mask and
 * the file index, which this is not. Approval `none`: it reads only the tool list.
 */
import type { ToolSchema } from '../conversation/conversationModel';
import type { InputCheck, ToolDefinition } from './toolDefinition';

/** The tool's name. */
export const FIND_TOOLS_NAME = 'find_tools';
/** The most tools one call returns (the API's tool search returns 3–5). */
export const FIND_TOOLS_MAX_RESULTS = 5;
/** The longest query taken (the API's regex tool search takes 200 characters). */
export const FIND_TOOLS_MAX_QUERY = 200;

/** What `find_tools` is given by the session. */
export interface FindToolsSource {
  /** The deferred tools now (the plan's `deferred`). */
  readonly deferred: () => readonly ToolSchema[];
  /** Records tools as loaded: they join the tool list at the next request. */
  readonly load: (names: readonly string[]) => void;
}

/** The tools of `deferred` that `query` matches: as a case-insensitive regex, else every keyword in name or description. */
export function matchTools(deferred: readonly ToolSchema[], query: string): ToolSchema[] {
  const text = (t: ToolSchema) => `${t.name}\n${t.description}`;
  let test: (t: ToolSchema) => boolean;
  try {
    const re = new RegExp(query, 'i');
    test = (t) => re.test(text(t));
  } catch {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    test = (t) => words.every((w) => text(t).toLowerCase().includes(w));
  }
  const hits = deferred.filter(test);
  // When the pattern as a whole matches nothing, any keyword will do (the model often writes "slack message").
  if (hits.length === 0 && /\s/.test(query.trim())) {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return deferred
      .filter((t) => words.some((w) => text(t).toLowerCase().includes(w)))
      .slice(0, FIND_TOOLS_MAX_RESULTS);
  }
  return hits.slice(0, FIND_TOOLS_MAX_RESULTS);
}

function validate(input: unknown): InputCheck<{ query: string }> {
  const q = (input as { query?: unknown } | null)?.query;
  if (typeof q !== 'string' || q.trim() === '')
    return { ok: false, error: 'find_tools needs "query": a regular expression or keywords, e.g. "slack|message".' };
  if (q.length > FIND_TOOLS_MAX_QUERY)
    return { ok: false, error: `find_tools: "query" is longer than ${FIND_TOOLS_MAX_QUERY} characters; shorten it.` };
  return { ok: true, input: { query: q } };
}

/** The `find_tools` definition over the session's deferred tools. */
export function findToolsDefinition(source: FindToolsSource): ToolDefinition<{ query: string }> {
  return {
    schema: {
      name: FIND_TOOLS_NAME,
      description:
        'Search the tools that are not loaded yet (MCP tools) by a regular expression or keywords over their names ' +
        'and descriptions. The tools found can be called from your next message on.',
      inputSchema: {
        type: 'object',
        properties: { query: { type: 'string', description: 'A regular expression (case-insensitive) or keywords.' } },
        required: ['query'],
      },
      effect: 'external',
    },
    effect: 'external',
    origin: { kind: 'session' },
    approval: 'none',
    readOnly: true,
    validate,
    target: (input) => input.query,
    execute: async (input) => {
      const found = matchTools(source.deferred(), input.query);
      if (found.length === 0)
        return { content: `No tool matches ${JSON.stringify(input.query)}. Try other words.`, isError: false };
      source.load(found.map((t) => t.name));
      const lines = found.map((t) => `- ${t.name}${t.server ? ` (${t.server})` : ''}: ${t.description}`);
      return {
        content: `Found ${found.length} tool${found.length === 1 ? '' : 's'}, loaded for your next message:\n${lines.join('\n')}`,
        isError: false,
      };
    },
  };
}
