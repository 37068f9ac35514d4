// The one way the project calls a model, with the durable request cache in front, a per-endpoint concurrency bound,
// token accounting, and failures mapped for Temporal. Chat goes through the openai SDK (openai-client.ts: one client
// per endpoint, SDK retries and logging off, a node:http keep-alive transport — sdk-fetch.ts): at 512 in flight a
// worker spends about the CPU per call of a plain fetch client, ~0.2 ms more than a bare POST (`npm run bench`,
// llm-cpu); an endpoint that speaks a scoring or log-prob API gets one JSON POST per request (post-json.ts,
// scoring-api.ts, logprob-api.ts).
//
// Retries happen at two levels on purpose. A retryable failure is first retried here, a few times, honouring
// Retry-After, so one flaky call does not abort the 50 other conversations of its shard; when those attempts are
// used up the failure goes to Temporal (mapped by errors.ts) and the whole shard activity retries — finding every
// call that already succeeded in the cache. An endpoint that is down (refused or reset connections, timeouts,
// 502/503/504: a restarting vLLM or proxy) is instead waited for, per call, with backoff capped at 2 s
// (../outage-backoff.ts) for up to llm.outageToleranceSeconds: a restart costs the run its length, not the shard's
// attempts. The activity heartbeats meanwhile (../heartbeat.ts keepAlive) and stops waiting when cancelled. A
// server the loop deployed that refuses connections is not restarting but gone (served-gone.ts): that call fails
// for good within seconds, and the iteration deploys again.
import type OpenAI from 'openai';
import type { LlmConfig } from '../../contracts/config';
import type { UsageCounter } from './usage';
import { requestCacheKey } from './cache';
import { type ClassifiedError, classifyLlmError, LlmBadResponse, toTemporalFailure } from './errors';
import { endpointLimiter, estimateTokens, estimateUsage } from './limiter';
import { count, metricIteration } from '../metrics';
import { rideOut } from '../outage-backoff';
import { checkLogProbCall, logProbOnce } from './logprob-api';
import { openaiClient } from './openai-client';
import { sdkCall } from './sdk-fetch';
import { scoreOnce, scoringPair } from './scoring-api';
import { servedGoneWatch } from './served-gone';
import { SERVED_ENDPOINT_GONE } from '../../contracts/errors';
import type { CachedAnswer, CallBudget, Chat, ChatCall, ChatOutput, RequestCache } from './types';
import { type EndpointRef, structuredOutputsRef } from '../../contracts/endpoint';
import { servedKey } from './served-key';

/**
 * The `endpoint` label of an endpoint's call metrics: never its URL (a served checkpoint's port changes with every
 * deploy) nor a served model's id (a checkpoint fetched from S3 is served as its 64-hex content hash, a transformers
 * server as its path), but the role and the iteration it serves, e.g. "agent@iter-1": one series per role and
 * iteration. An endpoint named in the config keeps its model name.
 */
export function endpointLabel(endpoint: EndpointRef, role: string | undefined): string {
  if (!endpoint.served) return endpoint.model;
  const iteration = metricIteration();
  return `${role || 'model'}@${iteration === undefined ? 'served' : `iter-${iteration}`}`;
}

export interface ChatClientOptions {
  endpoint: EndpointRef;
  cache: RequestCache;
  llm: LlmConfig;
  usage: UsageCounter;
  signal?: AbortSignal;
  /** The model role the calls play: the `role` label of the call metrics (activities/metrics.ts). */
  role?: string;
  /** The run's budget, checked before every call that is sent (budget-ledger.ts); absent: no budget. */
  budget?: CallBudget;
  /** Injected for tests; defaults to a timer that aborts with the signal. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** A failure meaning the endpoint is down (errors.ts `outage`), carried from the call retries to the outage wait. */
class EndpointDown extends Error {
  constructor(readonly failure: ClassifiedError) {
    super(failure.message);
  }
}

const inFlight = new Map<string, Promise<CachedAnswer>>();

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

export function resolveApiKey(endpoint: Pick<EndpointRef, 'baseUrl' | 'apiKeyEnv' | 'apiKeyRef'>): string {
  if (endpoint.apiKeyRef && !endpoint.apiKeyEnv) return servedKey(endpoint.apiKeyRef, endpoint.baseUrl);
  if (!endpoint.apiKeyEnv) return 'not-needed';
  const key = process.env[endpoint.apiKeyEnv];
  if (!key)
    throw toTemporalFailure({
      retryable: false,
      type: 'LlmAuthentication',
      message: `${endpoint.baseUrl}: environment variable ${endpoint.apiKeyEnv} (apiKeyEnv) is not set on this worker`,
    });
  return key;
}

function parseCompletion(body: OpenAI.Chat.Completions.ChatCompletion, where: string, n: number): CachedAnswer {
  if (!body || !Array.isArray(body.choices) || body.choices.length === 0) throw new LlmBadResponse(`${where}: response has no "choices"`);
  const choices = [...body.choices].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  if (choices.length < n) throw new LlmBadResponse(`${where}: asked for n=${n} choices, got ${choices.length}`);
  const texts = choices.map((c, i) => {
    const content = c?.message?.content;
    if (typeof content !== 'string') throw new LlmBadResponse(`${where}: choices[${i}].message.content is not a string`);
    return content;
  });
  return {
    texts,
    finishReasons: choices.map((c) => c.finish_reason ?? 'stop'),
    usage: { promptTokens: body.usage?.prompt_tokens ?? 0, completionTokens: body.usage?.completion_tokens ?? 0 },
  };
}

/** Makes an answer durable (the request cache's put); a failure is thrown as NotKept. */
type Keep = (answer: CachedAnswer) => Promise<void>;
const notYet: Keep = async () => {};

/** The cache could not keep an answer the endpoint gave (and was paid for): never retried or counted as the
 *  endpoint's failure; send() charges the answer to the budget and throws the cache's error. */
class NotKept extends Error {
  constructor(
    override readonly cause: unknown,
    readonly answer: CachedAnswer,
  ) {
    super('the request cache could not keep an answer');
  }
}

export function createChat(opts: ChatClientOptions): Chat {
  const { endpoint, cache, llm, usage, signal } = opts;
  const sleep = opts.sleep ?? defaultSleep;
  const api = endpoint.api ?? 'chat';
  // Sent only when the endpoint has a key: its own (apiKeyEnv) or the run's served-model key (apiKeyRef).
  const apiKey = endpoint.apiKeyEnv || endpoint.apiKeyRef ? resolveApiKey(endpoint) : undefined;
  const sdk = api === 'chat' ? openaiClient(endpoint.baseUrl, apiKey) : undefined;
  const limiter = endpointLimiter(endpoint, llm.sharedLimits);
  const labels = { role: opts.role ?? '', endpoint: endpointLabel(endpoint, opts.role) };
  const outageMs = llm.outageToleranceSeconds * 1000;
  /** A failed request: given up (the call fails) or sent again; counted for the metrics and the progress model. */
  const tally = (givenUp: boolean, kind: string) => {
    count(givenUp ? 'llmFailures' : 'llmRetries', 1, { ...labels, kind });
    if (givenUp) usage.failedCalls++;
    else usage.retriedRequests++;
  };

  function requestBody(
    call: ChatCall,
    n: number,
    seed: number | undefined,
  ): OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming {
    const d = call.decoding;
    const body: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming & { generation_config?: string } = {
      model: endpoint.model,
      messages: call.messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
      temperature: d.temperature,
      top_p: d.topP,
      max_tokens: d.maxTokens,
      seed,
      stop: d.stop,
      n,
      ...(call.responseFormat ? { response_format: call.responseFormat } : {}),
    };
    if (endpoint.dialect === 'transformers-serve')
      body.generation_config = JSON.stringify({
        do_sample: d.temperature > 0,
        max_new_tokens: d.maxTokens,
        ...(d.temperature > 0 ? { temperature: d.temperature, top_p: d.topP ?? 1 } : {}),
      });
    return body;
  }

  /** One request, once: the chat API, or the endpoint's scoring or log-prob API. The endpoint's slot is held until
   *  `keep` has made the answer durable: a worker killed at any moment has at most maxConcurrency answers paid for
   *  and not yet in the cache (tests/e2e/collabllm-loop.test.ts kills one mid-generation and counts them), but for
   *  one request per choice (request()). */
  async function attemptOnce(call: ChatCall, key: string, n: number, seed: number | undefined, keep: Keep): Promise<CachedAnswer> {
    const o = {
      signal,
      timeoutMs: llm.requestTimeoutSeconds * 1000,
      key,
      apiKey,
    };
    const limited = (send: () => Promise<CachedAnswer>) =>
      limiter.run(estimateTokens(call, n), signal, async () => {
        const answer = await send();
        await keep(answer);
        return answer;
      });
    if (api === 'logprob') return limited(() => logProbOnce(endpoint, call, o));
    if (api !== 'chat') return limited(() => scoreOnce({ ...endpoint, api }, call, o));
    return limited(async () => {
      const response = await sdk!.chat.completions
        .create(requestBody(call, n, seed), {
          headers: { 'x-collab-request-key': key },
          timeout: o.timeoutMs + 5000, // a backstop: sdk-fetch.ts times the request out at o.timeoutMs
          ...sdkCall({ signal, timeoutMs: o.timeoutMs }),
        })
        // The body is parsed here, not by the SDK's parse step (a content-type check, a request-id property defined on
        // the body, a debug-details object and a promise hop per call): fewer allocations per call in a worker at 512
        // in flight (`npm run bench -- llm-cpu` with --trace-gc).
        .asResponse();
      return parseCompletion((await response.json()) as OpenAI.Chat.Completions.ChatCompletion, endpoint.baseUrl, n);
    });
  }

  /** The request until it is answered: an endpoint that is down is waited for (rideOut, up to the outage tolerance,
   *  counted from the call's first such failure); any other retryable failure is retried `callRetries` times. */
  function sendOnce(call: ChatCall, key: string, n: number, seed: number | undefined, keep: Keep): Promise<CachedAnswer> {
    let retries = 0;
    const servedGone = servedGoneWatch(endpoint, opts.role);
    const withCallRetries = async (): Promise<CachedAnswer> => {
      for (;;) {
        try {
          return await attemptOnce(call, key, n, seed, keep);
        } catch (err) {
          if (err instanceof NotKept) throw err; // the cache failed, not the endpoint: not an LLM failure
          if (signal?.aborted) throw signal.reason ?? err;
          const c = classifyLlmError(err, endpoint.baseUrl);
          const gone = servedGone(c);
          if (gone) {
            tally(true, SERVED_ENDPOINT_GONE);
            throw gone;
          }
          if (c.outage && outageMs > 0) throw new EndpointDown(c);
          const givenUp = !c.retryable || retries >= llm.callRetries;
          tally(givenUp, c.type);
          if (givenUp) throw toTemporalFailure(c);
          const backoff = Math.min(250 * 2 ** retries++, llm.maxRetryDelaySeconds * 1000);
          await sleep(Math.min(c.retryAfterMs ?? backoff, llm.maxRetryDelaySeconds * 1000), signal);
        }
      }
    };
    return rideOut(withCallRetries, {
      toleranceMs: outageMs,
      isOutage: (e) => e instanceof EndpointDown,
      onWait: (e) => tally(false, (e as EndpointDown).failure.type),
      askedDelayMs: (e) => (e as EndpointDown).failure.retryAfterMs,
      giveUp: (e, waitedMs) => {
        if (signal?.aborted) return signal.reason;
        const c = (e as EndpointDown).failure;
        tally(true, c.type);
        const s = (ms: number) => Math.round(ms / 1000);
        return toTemporalFailure({
          ...c,
          message: `${c.message} (still failing after ${s(waitedMs)} s; llm.outageToleranceSeconds is ${s(outageMs)})`,
        });
      },
      signal,
      sleep,
    });
  }

  /** Puts the answer under `key` in the request cache. */
  const keepAs =
    (key: string): Keep =>
    (answer) =>
      cache.put(key, answer).catch((err) => Promise.reject(new NotKept(err, answer)));

  /** One answer to the call: n choices, in one request or (transformers serve) one request per choice. */
  async function request(call: ChatCall, key: string, n: number, onePerRequest: boolean): Promise<CachedAnswer> {
    if (!onePerRequest) return sendOnce(call, key, n, call.decoding.seed, keepAs(key));
    // One choice per request: ask n times, each with its own seed, and merge as if one request answered. The merged
    // answer is what the cache keeps, once every part is in: a part's slot is freed as it arrives, so a worker killed
    // meanwhile pays again for up to n - 1 parts of each such call beyond the maxConcurrency bound.
    const parts = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        sendOnce(call, `${key}/${i}`, 1, call.decoding.seed === undefined ? undefined : call.decoding.seed + i, notYet),
      ),
    );
    const merged: CachedAnswer = {
      texts: parts.flatMap((p) => p.texts),
      finishReasons: parts.flatMap((p) => p.finishReasons),
      usage: {
        promptTokens: parts.reduce((a, p) => a + p.usage.promptTokens, 0),
        completionTokens: parts.reduce((a, p) => a + p.usage.completionTokens, 0),
      },
    };
    await keepAs(key)(merged);
    return merged;
  }

  async function send(call: ChatCall, key: string): Promise<CachedAnswer> {
    const n = call.n ?? 1;
    const onePerRequest = n > 1 && endpoint.dialect === 'transformers-serve';
    const settle = opts.budget ? await opts.budget.reserve(estimateUsage(call, n)) : undefined;
    let answer: CachedAnswer | undefined;
    let paid: CachedAnswer | undefined;
    try {
      answer = await request(call, key, n, onePerRequest);
    } catch (err) {
      if (!(err instanceof NotKept)) throw err;
      paid = err.answer;
      throw err.cause;
    } finally {
      // A failed call costs nothing; one answered but not kept cost what it used.
      if (settle) await settle((answer ?? paid)?.usage);
    }
    // request() returns the answer once the cache holds it: durable before anyone counts it as done.
    usage.paidPromptTokens += answer.usage.promptTokens;
    usage.paidCompletionTokens += answer.usage.completionTokens;
    count('llmRequests', onePerRequest ? n : 1, labels);
    count('llmPromptTokens', answer.usage.promptTokens, labels);
    count('llmCompletionTokens', answer.usage.completionTokens, labels);
    return answer;
  }

  const chat = async (call: ChatCall): Promise<ChatOutput> => {
    // A scoring endpoint answers one score per request: a call it cannot take fails for good, before the cache.
    if (api === 'logprob') checkLogProbCall(call, `${endpoint.baseUrl} (log-prob API)`);
    else if (api !== 'chat') scoringPair(call, `${endpoint.baseUrl} (${api} API)`);
    const key = requestCacheKey(endpoint.cacheId, call, api);
    // The shared promise is registered before the first await, so identical concurrent calls (two shards retried
    // side by side, a zombie attempt and its retry) never both miss the cache and both pay: by the time the promise
    // is dropped from the map its answer is already on disk.
    let cached = true;
    let p = inFlight.get(key);
    const shared = p !== undefined;
    if (!p) {
      p = (async () => {
        const hit = await cache.get(key);
        if (hit) return hit;
        cached = false;
        return send(call, key);
      })().finally(() => inFlight.delete(key));
      inFlight.set(key, p);
    }
    const answer = await p;
    // Sent by this chat: settled in send. From the cache, or sent by another shard's identical call: paid already.
    if (cached && opts.budget) await opts.budget.record(answer.usage);
    usage.calls++;
    if (cached) usage.cachedCalls++;
    if (shared) usage.sharedCalls++;
    count('llmCalls', 1, labels);
    if (cached) count('llmCacheHits', 1, labels);
    usage.promptTokens += answer.usage.promptTokens;
    usage.completionTokens += answer.usage.completionTokens;
    return { ...answer, cached };
  };
  return Object.assign(chat, { api, ...structuredOutputsRef(endpoint.structuredOutputs) });
}
