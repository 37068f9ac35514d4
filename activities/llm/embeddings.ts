// Text embeddings from an OpenAI-compatible `/v1/embeddings` endpoint through the openai client (a few requests per
// debate, so the SDK's per-request cost does not matter here; its own retries cover a flaky call, and a failure
// fails the task's activity, which Temporal retries). The key is read from the worker's environment (apiKeyEnv).
import OpenAI from 'openai';
import { resolveApiKey } from './client';

export interface EmbeddingsEndpoint {
  baseUrl: string;
  model: string;
  apiKeyEnv?: string;
}

export function embeddingsClient(e: EmbeddingsEndpoint): (texts: string[]) => Promise<number[][]> {
  const client = new OpenAI({ baseURL: e.baseUrl, apiKey: resolveApiKey(e), maxRetries: 3 });
  return async (texts) => {
    if (!texts.length) return [];
    const r = await client.embeddings.create({ model: e.model, input: texts, encoding_format: 'float' });
    return [...r.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
  };
}
