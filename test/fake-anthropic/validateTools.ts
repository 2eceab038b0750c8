/**
 * Checks of `system` (a string or text blocks) and `tools` (custom tools need a name matching
 * the API's pattern and an `input_schema` of type object; names are unique; server tools such
 * as `web_search_20250305` need a name).
 */
import { checkCacheControl } from './cacheControl';
import { invalid, isObject, noExtraKeys, requireString } from './reject';
import { isKnownToolType } from './toolSearch';
import { checkText } from './validateBlocks';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const CUSTOM_TOOL_FIELDS = new Set([
  'type',
  'name',
  'description',
  'input_schema',
  'cache_control',
  'allowed_callers',
  'defer_loading',
  'eager_input_streaming',
  'input_examples',
  'strict',
]);
const SYSTEM_BLOCK_FIELDS = new Set(['type', 'text', 'cache_control', 'citations']);

/** Checks the `system` field when present. */
export function checkSystem(system: unknown): void {
  if (system === undefined || typeof system === 'string') return;
  if (!Array.isArray(system)) invalid('system', 'system: Input should be a valid string or a valid list');
  system.forEach((b: unknown, i) => {
    const loc = `system.${i}`;
    if (!isObject(b)) invalid('system', `${loc}: Input should be a valid dictionary`);
    if (b.type !== 'text') invalid('system', `${loc}.type: Input should be 'text'`);
    noExtraKeys(b, SYSTEM_BLOCK_FIELDS, loc);
    checkText(b.text, loc);
    checkCacheControl(b.cache_control, loc);
  });
}

/** Checks the `tools` field when present. */
export function checkTools(tools: unknown): void {
  if (tools === undefined) return;
  if (!Array.isArray(tools)) invalid('tools', 'tools: Input should be a valid list');
  const names = new Set<string>();
  tools.forEach((t: unknown, i) => {
    const loc = `tools.${i}`;
    if (!isObject(t)) invalid('tools', `${loc}: Input should be a valid dictionary`);
    const custom = t.type === undefined || t.type === null || t.type === 'custom';
    const at = custom ? `${loc}.custom` : `${loc}.${String(t.type)}`;
    const name = requireString(t.name, `${at}.name`, 'tools');
    if (custom) checkCustomTool(t, at, name);
    else if (typeof t.type !== 'string' || !isKnownToolType(t.type))
      invalid(
        'tools',
        `${loc}: Input tag '${String(t.type)}' found using 'type' does not match any of the expected tags`,
      );
    if (names.has(name)) invalid('tools_unique', 'tools: Tool names must be unique.');
    names.add(name);
    checkCacheControl(t.cache_control, at);
  });
}

function checkCustomTool(t: Record<string, unknown>, at: string, name: string): void {
  noExtraKeys(t, CUSTOM_TOOL_FIELDS, at);
  if (!TOOL_NAME.test(name)) invalid('tools', `${at}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
  if (t.description !== undefined && typeof t.description !== 'string')
    invalid('tools', `${at}.description: Input should be a valid string`);
  const schema = t.input_schema;
  if (schema === undefined) invalid('tools', `${at}.input_schema: Field required`);
  if (!isObject(schema)) invalid('tools', `${at}.input_schema: Input should be a valid dictionary`);
  if (schema.type !== 'object') invalid('tools', `${at}.input_schema.type: Input should be 'object'`);
}

/** Checks `tool_choice` when present: auto / any / none, or tool with the name of a defined tool. */
export function checkToolChoice(choice: unknown, tools: unknown): void {
  if (choice === undefined) return;
  if (!isObject(choice)) invalid('tool_choice', 'tool_choice: Input should be a valid dictionary');
  const type = choice.type;
  if (type !== 'auto' && type !== 'any' && type !== 'tool' && type !== 'none') {
    invalid(
      'tool_choice',
      `tool_choice: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'`,
    );
  }
  if (type === 'tool') {
    const name = requireString(choice.name, 'tool_choice.tool.name', 'tool_choice');
    const defined = Array.isArray(tools) && tools.some((t: unknown) => isObject(t) && t.name === name);
    if (!defined) invalid('tool_choice', `tool_choice.tool.name: tool '${name}' is not defined in \`tools\``);
  }
}
