// One openai SDK client per endpoint and key, for the process's life (the SDK's per-client setup — options, the
// platform headers — is paid once, not per call). Tuned for a worker that retries and logs by itself (client.ts):
// `maxRetries: 0` (a retry is client.ts's decision: its call retries, outage waits and served-gone rule), `logLevel:
// 'off'`, and sdk-fetch.ts as transport (node:http over one keep-alive agent per process).
import OpenAI from 'openai';
import { sdkFetch } from './sdk-fetch';

const clients = new Map<string, OpenAI>();

/** `apiKey` undefined: the endpoint has no key, and no Authorization header is sent (as a keyless vLLM expects). */
export function openaiClient(baseURL: string, apiKey: string | undefined): OpenAI {
  const id = `${baseURL}\n${apiKey ?? ''}`;
  let client = clients.get(id);
  if (!client) {
    client = new OpenAI({
      baseURL,
      apiKey: apiKey ?? 'none',
      ...(apiKey === undefined ? { defaultHeaders: { Authorization: null } } : {}),
      organization: null, // not OPENAI_ORG_ID / OPENAI_PROJECT_ID from the worker's environment
      project: null,
      maxRetries: 0,
      logLevel: 'off',
      fetch: sdkFetch,
    });
    clients.set(id, client);
  }
  return client;
}
