// The one shape every recipe uses to talk to a model. Implemented by activities/llm/client.ts
// (one JSON POST per request + the durable request cache); recipes only see this interface, so they stay pure and testable.

export interface TextPart {
  type: 'text';
  text: string;
}
export interface ImagePart {
  type: 'image_url';
  image_url: { url: string };
}
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | Array<TextPart | ImagePart>;
}

/** Decoding parameters: all of them are part of the request-cache key. */
export interface Decoding {
  temperature: number;
  topP?: number;
  maxTokens: number;
  /** Per-request sampling seed sent to the server (vLLM honours it). */
  seed?: number;
  stop?: string[];
}

export interface ChatCall {
  messages: ChatMessage[];
  decoding: Decoding;
  /** Number of candidates in one request (tree sampling). Default 1. */
  n?: number;
  /**
   * Identifies which sample this is (e.g. `s3` for the 4th sample of a task). Part of the cache key so that
   * repeated samples of the same prompt do not collapse into one cached answer.
   */
  sampleKey: string;
  /** OpenAI structured outputs (`response_format: {type: json_schema}`), only to an endpoint with
   *  structuredOutputs json_schema (activities/recipes/shared/structured-reply.ts). Part of the cache key. */
  responseFormat?: ResponseFormatJsonSchema;
}

export interface ResponseFormatJsonSchema {
  type: 'json_schema';
  json_schema: { name: string; strict?: boolean | null; schema?: Record<string, unknown>; description?: string };
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatOutput {
  texts: string[];
  finishReasons: string[];
  usage: TokenUsage;
  /** True when the answer came from the durable cache (no request was sent). */
  cached: boolean;
}

import type { ModelApi } from '../../contracts/endpoint';

export type { ModelApi };

/**
 * One call to a model role. `api` says how its endpoint speaks (absent: chat), so a recipe knows how to ask a reward
 * role: an LLM judge (chat) gets a judging prompt; a scoring endpoint (reward: a reward model behind vLLM's pooling
 * API; score: a plain HTTP scoring service such as COMET-KIWI) is asked by convention with exactly
 *   messages: [{ role: 'user', content: <question, or source text> }, { role: 'assistant', content: <response> }]
 * and answers one text, the score as a decimal string (`Number(out.texts[0])`), with finish reason 'stop' and no
 * completion tokens. `decoding` and `sampleKey` still key the request cache; `n` must be 1.
 */
export type Chat = ((call: ChatCall) => Promise<ChatOutput>) & {
  readonly api?: ModelApi;
  /** `json_schema`: the endpoint honours ChatCall.responseFormat; absent: ask in the prompt and parse. */
  readonly structuredOutputs?: 'json_schema';
};

/** An endpoint's answer as the request cache keeps it. */
export interface CachedAnswer {
  texts: string[];
  finishReasons: string[];
  usage: { promptTokens: number; completionTokens: number };
}

/** Durable answers by request key (activities/llm/cache.ts). */
export interface RequestCache {
  get(key: string): Promise<CachedAnswer | undefined>;
  /** Resolves once the answer is durable: callers hand the answer on only after this. */
  put(key: string, answer: CachedAnswer): Promise<void>;
}

/** A role's calls counted against the run's `budget` (activities/llm/budget-ledger.ts). */
export interface CallBudget {
  /** Before a call is sent: reserves what it may cost, or throws BudgetReached. Resolves to its settling: the answer's
   *  usage replaces the estimate (none: the call failed and costs nothing). */
  reserve(estimate: TokenUsage): Promise<(used: TokenUsage | undefined) => Promise<void>>;
  /** An answer from the cache: counted like a sent call (its usage exactly), and refused with BudgetReached once it
   *  would pass the budget — the spend `status` shows counts cached answers, so the stop must too. */
  record(used: TokenUsage): Promise<void>;
}
