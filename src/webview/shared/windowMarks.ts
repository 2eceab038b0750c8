/**
 * The words of the window meters' marks (the chat header's bar and the budget panel's): what
 * happens at the soft and hard thresholds and where the next compaction is expected. The
 * figures come from the host's pressure (core's `contextPressure`); this only says them.
 */
import type { PressureFigures } from '../../protocol/pressure';
import { formatTokens } from './dom';

/** The soft threshold's mark: what crossing it does (by `softAction`) and where it is, `Auto-compact at 70 % (118k)`. */
export function softMarkTitle(p: PressureFigures): string {
  switch (p.softAction) {
    case 'auto':
      return `Auto-compact at ${p.softMark}`;
    case 'propose':
      return `Compaction proposed at ${p.softMark}`;
    case 'off':
      return `Soft threshold at ${p.softMark} (nothing happens there: contextPipeline.autoCompact is off)`;
    default:
      return `Soft threshold at ${p.softMark}`;
  }
}

/** The hard threshold's mark: `Must compact at 90 % (151k)`. */
export function hardMarkTitle(p: PressureFigures): string {
  return `Must compact at ${p.hardMark}, before the next request is sent`;
}

/** The next compaction's mark: where the compactor's plan expects it, and why. */
export function nextMarkTitle(atTokens: number, reason: string): string {
  return `Next compaction expected at ${formatTokens(atTokens)} tokens — ${reason}`;
}

/** The short names the budget panel's legend gives the marks. */
export function markLegend(p: PressureFigures): {
  readonly soft: string;
  readonly hard: string;
  readonly next: string;
} {
  const soft =
    p.softAction === 'auto'
      ? `auto-compact ${p.softMark}`
      : p.softAction === 'propose'
        ? `compaction proposed ${p.softMark}`
        : `soft threshold ${p.softMark}`;
  return { soft, hard: `must compact ${p.hardMark}`, next: 'next compaction expected' };
}
