// Durable request cache: every successful LLM answer is written to the run's store (atomically) before the caller
// sees it, so a retried or resumed shard never pays for the same call twice. The key covers what determines the
// answer — model identity, the API it is asked through, messages, decoding params, n, sample key — and nothing
// about throughput (batching, concurrency), so tuning those never invalidates the cache.
import { sha256Hex } from '../storage/content-hash';
import type { ObjectStore } from '../storage/object-store';
import { isLocalStorage, localStateDir, objectStoreFor, type StorageOf } from '../storage/run-storage';
import { JournalRequestCache } from './journal-cache';
import { ObjectJournalCache } from './object-journal-cache';
import { openedCaches } from './opened-caches';
import path from 'node:path';
import type { CachedAnswer, ChatCall, ModelApi, RequestCache } from './types';

/** Stable JSON: object keys sorted, undefined dropped — so key order in code never changes a cache key. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  // One string built in place: it runs on every LLM call (requestCacheKey), where the entries/filter/map/join
  // chain's arrays were a measurable share of a worker's allocations (`npm run bench -- llm-cpu`).
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) out += `${i ? ',' : ''}${canonicalJson(value[i]) ?? ''}`; // as join() writes undefined
    return `${out}]`;
  }
  const o = value as Record<string, unknown>;
  out = '{';
  for (const k of Object.keys(o).sort()) {
    const v = o[k];
    if (v !== undefined) out += `${out.length > 1 ? ',' : ''}${JSON.stringify(k)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

/** `api` (how the endpoint is asked) is part of the key unless it is chat, so a score is never served for a chat call
 *  of the same messages while every chat key stays what it was before endpoints had an api. */
export function requestCacheKey(modelId: string, call: ChatCall, api: ModelApi = 'chat'): string {
  return sha256Hex(
    canonicalJson({
      v: 1,
      model: modelId,
      api: api === 'chat' ? undefined : api,
      messages: call.messages,
      decoding: call.decoding,
      n: call.n ?? 1,
      sample: call.sampleKey,
      // A schema the server must follow changes the answer (absent: the key every earlier run wrote).
      responseFormat: call.responseFormat,
    }),
  );
}

/** The run's durable request cache, beside its artifacts and shared by every stage, worker and host that calls a
 *  model for the run (and every run on the same store: the key says nothing about the run): journals in
 *  <stateDir>/llm-cache on one machine (one per process, indexed in its index.sqlite), journal objects in an object store
 *  (object-journal-cache.ts; indexed, and kept while the store cannot be written, in this host's
 *  <stateDir>/llm-cache-unsaved/<store>). */
export function requestCacheFor(config: StorageOf): RequestCache {
  // One cache per process and directory (opened-caches.ts): its journal, or the answers waiting for the store, are the
  // process's own.
  const store = objectStoreFor(config);
  if (!isLocalStorage(config)) {
    const dir = path.join(localStateDir(config), 'llm-cache-unsaved', sha256Hex(store.location).slice(0, 16));
    let cache = openedCaches.get(dir);
    if (!cache) openedCaches.set(dir, (cache = new ObjectJournalCache(store, dir, new ObjectRequestCache(store))));
    return cache;
  }
  const dir = path.join(localStateDir(config), 'llm-cache');
  let cache = openedCaches.get(dir);
  // Caches written before the journals are these same per-answer files under the state dir: still read.
  if (!cache) openedCaches.set(dir, (cache = new JournalRequestCache(dir, new ObjectRequestCache(store))));
  return cache;
}

/** One object (or file) per answer (llm-cache/<ab>/<key>.json): how answers were cached before the journals; still
 *  read, so runs cached then keep their answers. */
export class ObjectRequestCache implements RequestCache {
  constructor(readonly objects: ObjectStore) {}

  private key(key: string): string {
    return `llm-cache/${key.slice(0, 2)}/${key}.json`;
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    const bytes = await this.objects.get(this.key(key));
    try {
      return bytes ? (JSON.parse(bytes.toString('utf8')) as CachedAnswer) : undefined;
    } catch {
      return undefined; // unreadable: a miss is always safe (a store that cannot be reached fails the call instead)
    }
  }

  put(key: string, answer: CachedAnswer): Promise<void> {
    return this.objects.put(this.key(key), JSON.stringify(answer));
  }
}
