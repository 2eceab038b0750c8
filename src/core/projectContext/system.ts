/**
 * The system prompt in cache order — static prompt, instruction blocks, workspace facts — and
 * what changed between two project contexts (for the reload notice). Pure.
 */
import type { TextBlock } from '../conversation/conversationModel';
import type { Tokenizer } from '../platform/platformPorts';

/** Whether a system block belongs to the project context (instructions or workspace facts). */
export function isProjectContextBlock(b: TextBlock): boolean {
  return b.meta.source === 'instructions' || b.meta.source === 'workspace';
}

/**
 * `system` with its project-context blocks replaced by `project`: the other blocks (the
 * static prompt) first, as they were, then the instruction blocks, then the workspace facts —
 * most stable first, so the system cache breakpoint (on the last block) covers them all and a
 * changed fact invalidates as little as possible.
 */
export function withProjectContext(system: readonly TextBlock[], project: readonly TextBlock[]): TextBlock[] {
  const rank = (b: TextBlock) => (b.meta.source === 'instructions' ? 0 : 1);
  const ordered = project
    .filter(isProjectContextBlock)
    .map((b, i) => ({ b, i }))
    .sort((x, y) => rank(x.b) - rank(y.b) || x.i - y.i)
    .map((x) => x.b);
  return [...system.filter((b) => !isProjectContextBlock(b)), ...ordered];
}

/** What a reload changed, per file and for the facts, with token deltas. */
export interface ProjectContextChange {
  readonly added: ReadonlyArray<{ readonly origin: string; readonly tokens: number }>;
  readonly removed: ReadonlyArray<{ readonly origin: string; readonly tokens: number }>;
  readonly changed: ReadonlyArray<{ readonly origin: string; readonly before: number; readonly after: number }>;
  readonly factsChanged: boolean;
}

/** Compares two sets of project-context blocks: instruction files by origin (text compared), the facts by text. */
export function diffProjectContext(
  before: readonly TextBlock[],
  after: readonly TextBlock[],
  tokenizer: Tokenizer,
): ProjectContextChange {
  const files = (bs: readonly TextBlock[]) =>
    new Map(bs.filter((b) => b.meta.source === 'instructions').map((b) => [b.meta.origin ?? b.meta.id, b.text]));
  const facts = (bs: readonly TextBlock[]) =>
    bs
      .filter((b) => b.meta.source === 'workspace')
      .map((b) => b.text)
      .join('\n');
  const old = files(before);
  const now = files(after);
  const added = [...now]
    .filter(([o]) => !old.has(o))
    .map(([origin, text]) => ({ origin, tokens: tokenizer.count(text) }));
  const removed = [...old]
    .filter(([o]) => !now.has(o))
    .map(([origin, text]) => ({ origin, tokens: tokenizer.count(text) }));
  const changed = [...now].flatMap(([origin, text]) => {
    const was = old.get(origin);
    return was !== undefined && was !== text
      ? [{ origin, before: tokenizer.count(was), after: tokenizer.count(text) }]
      : [];
  });
  return { added, removed, changed, factsChanged: facts(before) !== facts(after) };
}

const signed = (n: number) => `${n >= 0 ? '+' : '−'}${Math.abs(n).toLocaleString('en-US')}`;

/** The reload notice: each file added, removed or changed with its token delta, whether the facts changed — or that nothing did. */
export function describeProjectContextChange(c: ProjectContextChange): string {
  const parts = [
    ...c.added.map((f) => `${f.origin} added (${signed(f.tokens)} tokens)`),
    ...c.removed.map((f) => `${f.origin} removed (${signed(-f.tokens)} tokens)`),
    ...c.changed.map(
      (f) =>
        `${f.origin} changed (${f.before.toLocaleString('en-US')} → ${f.after.toLocaleString('en-US')} tokens, ${signed(f.after - f.before)})`,
    ),
  ];
  if (parts.length === 0 && !c.factsChanged) return 'Project context reloaded: nothing changed.';
  const files = parts.length > 0 ? parts.join('; ') : 'instruction files unchanged';
  return `Project context reloaded: ${files}; workspace facts ${c.factsChanged ? 'changed' : 'unchanged'}.`;
}
