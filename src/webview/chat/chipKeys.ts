/** What a key pressed on a focused context chip does: Delete and Backspace remove it. */
export function chipKeyAction(key: string): 'remove' | undefined {
  return key === 'Delete' || key === 'Backspace' ? 'remove' : undefined;
}

/**
 * Where focus goes after the chip at `removed` was removed and `remaining` chips are shown:
 * the chip that took its place, else the one before it, else the message input.
 */
export function focusAfterRemoval(removed: number, remaining: number): number | 'input' {
  if (remaining <= 0) return 'input';
  return Math.min(Math.max(0, removed), remaining - 1);
}

/** The short name of a chip's kind, as shown on it: pinned, selection, file, attached (`@`), or the tag itself. */
export function chipKind(tag: string, pinned: boolean): string {
  if (pinned) return 'pinned';
  return tag === 'ide_selection'
    ? 'selection'
    : tag === 'ide_opened_file'
      ? 'file'
      : tag === 'attached_file'
        ? 'attached'
        : tag;
}
