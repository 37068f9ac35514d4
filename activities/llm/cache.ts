// Durable request cache: every successful LLM answer is written to the run's store (atomically) before the caller
// sees it, so a retried or resumed shard never pays for the same call twice. The key covers what determines the
// answer — model identity, the API it is asked through, messages, decoding params, n, sample key — and nothing
// about throughput (batching, concurrency), so tuning those never invalidates the cache.
import { sha256Hex } from '../storage/content-hash';
import type { ObjectStore } from '../storage/object-store';
import { isLocalStorage, localStateDir, objectStoreFor, type StorageOf } from '../storage/run-storage';
import { JournalRequestCache } from './journal-cache';
import path from 'node:path';
import type { CachedAnswer, ChatCall, ModelApi, RequestCache } from './types';

/** Stable JSON: object keys sorted, undefined dropped — so key order in code never changes a cache key. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
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
    }),
  );
}

const journals = new Map<string, JournalRequestCache>();

/** The run's durable request cache, beside its artifacts and shared by every stage, worker and host that calls a
 *  model for the run: journals in <stateDir>/llm-cache on one machine (one per process), one object per answer
 *  in an object store. */
export function requestCacheFor(config: StorageOf): RequestCache {
  const objects = new ObjectRequestCache(objectStoreFor(config));
  if (!isLocalStorage(config)) return objects;
  const dir = path.join(localStateDir(config), 'llm-cache');
  let cache = journals.get(dir);
  // Caches written before the journals are these same per-answer files under the state dir: still read.
  if (!cache) journals.set(dir, (cache = new JournalRequestCache(dir, objects)));
  return cache;
}

/** One object per answer (llm-cache/<ab>/<key>.json): what an object store shared by several hosts offers. */
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
