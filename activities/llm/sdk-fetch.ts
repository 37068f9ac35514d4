// The `fetch` the openai SDK is given (openai-client.ts): a POST over post-json.ts's node:http keep-alive agent,
// answered with the least of a Response the SDK and client.ts read (status, ok, headers.get/entries, text, json —
// the SDK's client.ts makeRequest; client.ts parses the body itself). Node's fetch (undici's WHATWG layer: streams, header guards, a
// signal per request) cost a worker about 0.3 ms more CPU per call at 512 in flight (`npm run bench`, llm-cpu).
//
// The activity's cancellation signal and the request timeout do not go through the SDK's `signal` / `timeout`: the
// SDK adds an abort listener per request to the signal it is given and never removes it, so on an activity's one
// long-lived signal each request would walk (and leave) thousands of listeners. They come in the request's
// `fetchOptions` instead (`sdkCall`) and reach post-json.ts's one listener per signal.
import type OpenAI from 'openai';
import { LlmBadResponse } from './errors';
import { type Answer, send } from './post-json';

/** What a request carries to this fetch: the activity's signal and the timeout (the SDK's own is only a backstop). */
export interface SdkCall {
  signal?: AbortSignal;
  timeoutMs: number;
}

const CALL = 'collabCall';

type RequestOptions = NonNullable<Parameters<OpenAI['chat']['completions']['retrieve']>[1]>;

/** The SDK request option that hands `call` to sdkFetch. */
export const sdkCall = (call: SdkCall): Pick<RequestOptions, 'fetchOptions'> => ({
  fetchOptions: { [CALL]: call } as RequestOptions['fetchOptions'],
});

class AnswerHeaders {
  constructor(private readonly raw: Answer['headers']) {}
  get(name: string): string | null {
    const v = this.raw[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  }
  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }
  *entries(): IterableIterator<[string, string]> {
    for (const k of Object.keys(this.raw)) yield [k, this.get(k)!];
  }
  forEach(f: (value: string, key: string) => void): void {
    for (const [k, v] of this.entries()) f(v, k);
  }
  [Symbol.iterator]() {
    return this.entries();
  }
}

class AnswerResponse {
  readonly headers: AnswerHeaders;
  readonly body = null;
  constructor(
    private readonly answer: Answer,
    readonly url: string,
  ) {
    this.headers = new AnswerHeaders(answer.headers);
  }
  get status() {
    return this.answer.status;
  }
  get ok() {
    return this.answer.status >= 200 && this.answer.status < 300;
  }
  async text() {
    return this.answer.text;
  }
  async json(): Promise<unknown> {
    try {
      return JSON.parse(this.answer.text);
    } catch {
      throw new LlmBadResponse(`POST ${this.url}: response is not JSON: ${JSON.stringify(this.answer.text.slice(0, 120))}`);
    }
  }
}

/** Parsed once per address (one per endpoint), not once per request. */
const urls = new Map<string, URL>();

/** Only POST: the SDK is used for chat completions alone. */
export async function sdkFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = String(input);
  const call = (init as Record<string, unknown>)[CALL] as SdkCall | undefined;
  if (call?.signal?.aborted) throw call.signal.reason;
  const body = typeof init.body === 'string' ? init.body : '';
  const headers: Record<string, string> = { 'content-length': String(Buffer.byteLength(body)) };
  (init.headers instanceof Headers ? init.headers : new Headers(init.headers)).forEach((v, k) => {
    headers[k] = v;
  });
  let target = urls.get(url);
  if (!target) urls.set(url, (target = new URL(url)));
  const answer = await send(target, body, headers, { signal: call?.signal, timeoutMs: call?.timeoutMs ?? 600_000 });
  return new AnswerResponse(answer, url) as unknown as Response;
}
