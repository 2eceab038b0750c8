/**
 * Anthropic model ids as other platforms spell them, read back as the Messages API's own.
 * Sessions logged through Amazon Bedrock (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`),
 * Google Vertex AI (`claude-sonnet-4-5@20250929`) or OpenRouter (`anthropic/claude-sonnet-4.5`)
 * name the same models: Bedrock's ids carry an optional geography prefix (`us.`, `eu.`,
 * `apac.`, `global.`), the `anthropic.` vendor prefix and a `-vN:M` version suffix; Vertex's
 * put `@` before the date; OpenRouter's prefix the vendor and write versions with a dot.
 * (Anthropic's docs, "Claude on Amazon Bedrock" and "Claude on Vertex AI", list the ids in
 * these forms.) Pure.
 */

/**
 * `id` as the Messages API names the model: the platform's prefix and suffix removed, `@`
 * before a date written `-`, and a dotted version (`4.5`) written with a dash. An id that is
 * already the API's, or not a Claude id, comes back unchanged.
 */
export function canonicalModelId(id: string): string {
  let m = id.trim();
  // OpenRouter: `anthropic/claude-sonnet-4.5` (also `~anthropic/…` aliases).
  m = m.replace(/^~?anthropic\//i, '');
  // Bedrock: `[geo.]anthropic.claude-…-v1:0`, or an ARN's last part.
  m = m.replace(/^arn:aws:bedrock:[^/]*\//i, '');
  m = m.replace(/^(?:[a-z]{2,6}\.)?anthropic\.(?=claude)/i, '');
  m = m.replace(/-v\d+(?::\d+)?$/i, '');
  // Vertex AI: `claude-sonnet-4-5@20250929`.
  m = m.replace(/@(\d{8})$/, '-$1');
  if (!/^claude/i.test(m)) return id;
  // A dotted version (`claude-sonnet-4.5`, `claude-3.5-sonnet`) as the API writes it.
  return m.replace(/(\d)\.(\d)/g, '$1-$2').toLowerCase();
}
