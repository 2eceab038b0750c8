import type { CacheLifetime, CacheTtl } from '../conversation/conversationModel';

/**
 * The lifetime most writes get under `lifetime`, which a price estimate assumes: 1 hour only
 * when the setting says so (under `auto` the growing tail is mostly written for 5 minutes).
 */
export function usualWriteTtl(lifetime: CacheLifetime): CacheTtl {
  return lifetime === '1h' ? '1h' : '5m';
}
