// The request caches this process has opened, one per directory (cache.ts requestCacheFor): each holds its journal
// and its index file open. Apart from cache.ts so that closing them (a test worker between files) loads nothing else.
import type { RequestCache } from './types';

export const openedCaches = new Map<string, RequestCache & { close(): Promise<void> }>();

/** Closes every cache opened so far: for a process that opens many runs' caches in turn, such as a test worker. A
 *  cache used again afterwards opens what it needs again. */
export async function closeRequestCaches(): Promise<void> {
  const caches = [...openedCaches.values()];
  openedCaches.clear();
  await Promise.all(caches.map((c) => c.close()));
}
