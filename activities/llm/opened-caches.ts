// The request caches this process has opened, one per directory (cache.ts requestCacheFor): each holds its journal
// and its index file open. Apart from cache.ts so that closing them (a test worker between files) loads nothing else.
import type { RequestCache } from './types';

export const openedCaches = new Map<string, RequestCache & { close(): Promise<void> }>();

/** Closes the caches, then exits: the journal writes under way finish and the index lines recorded this turn are
 *  committed, where process.exit() would drop them (the answers stay in the journals, but the next process to miss
 *  pays a catch-up read for them). Every exit of a process that may have used a cache goes through here. */
export async function exitClosingCaches(code: Parameters<typeof process.exit>[0]): Promise<never> {
  await closeRequestCaches().catch(() => {});
  process.exit(code);
}

/** Closes every cache opened so far: for a process that opens many runs' caches in turn, such as a test worker. A
 *  cache used again afterwards opens what it needs again. */
export async function closeRequestCaches(): Promise<void> {
  const caches = [...openedCaches.values()];
  openedCaches.clear();
  await Promise.all(caches.map((c) => c.close()));
}
