import type { ChatToWebview } from '../../protocol/chat';

/** Most messages kept for a chat view that is not ready. */
export const MAX_QUEUED = 100;

/**
 * Whether a message posted while the view is not ready must still reach it: the transcript,
 * the status, the context chips, streamed text and previews are all resent by the `ready`
 * resync (a queued copy would be stale and could overwrite the fresh one); errors (with
 * Retry), notices and approval cards are not part of the conversation, so they wait.
 */
export function survivesResync(message: ChatToWebview): boolean {
  return (
    message.type === 'upsert' &&
    (message.item.kind === 'error' || message.item.kind === 'notice' || message.item.kind === 'approval')
  );
}
