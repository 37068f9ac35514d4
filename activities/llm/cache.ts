// Durable request cache: every successful LLM answer is written to disk (write-tmp + rename) before the caller
// sees it, so a retried or resumed shard never pays for the same call twice. The key covers what determines the
// answer — model identity, the API it is asked through, messages, decoding params, n, sample key — and nothing
// about throughput (batching, concurrency), so tuning those never invalidates the cache.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex, writeFileAtomic } from '../artifacts/store';
import type { ChatCall, ModelApi } from './types';

export interface CachedAnswer {
  texts: string[];
  finishReasons: string[];
  usage: { promptTokens: number; completionTokens: number };
}

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

/** The run's durable request cache: one directory per state dir, shared by every stage that calls a model. */
export function requestCacheFor(stateDir: string): RequestCache {
  return new RequestCache(path.join(stateDir, 'llm-cache'));
}

export class RequestCache {
  constructor(readonly dir: string) {}

  private file(key: string): string {
    return path.join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    try {
      return JSON.parse(await readFile(this.file(key), 'utf8')) as CachedAnswer;
    } catch {
      return undefined; // missing (or, impossibly with atomic writes, torn): a miss is always safe
    }
  }

  put(key: string, answer: CachedAnswer): void {
    writeFileAtomic(this.file(key), JSON.stringify(answer));
  }
}
