// Asking an LLM judge until its reply can be read — shared by the reward judge (reward.ts) and the pairwise
// evaluation judge (evaluation.ts). Re-asks go under new cache keys (`<key>/retry-<i>`), so a rerun replays the same
// replies; still unreadable after them is FAILED, never a made-up value.
import { ApplicationFailure } from '@temporalio/common';
import { SERVED_ENDPOINT_GONE } from '../../../contracts/errors';
import type { Chat, ChatMessage, ResponseFormatJsonSchema, TokenUsage } from '../../llm/types';
import { addUsage } from '../../llm/usage';

/**
 * A request the endpoint rejects for good (e.g. 400: too long for the model) fails this one call: its message.
 * Anything retryable is the activity's to retry, and a spent budget or a lost loop-served server
 * (../../llm/served-gone.ts: the iteration deploys again) stops the whole shard: undefined (rethrow it).
 */
export function failsThisCallOnly(err: unknown): string | undefined {
  const stopsShard = ['BudgetReached', SERVED_ENDPOINT_GONE];
  return err instanceof ApplicationFailure && err.nonRetryable && !stopsShard.includes(err.type ?? '') ? err.message : undefined;
}

export async function askUntilReadable<T>(
  chat: Chat,
  messages: ChatMessage[],
  read: (reply: string) => T | undefined,
  o: {
    key: string;
    maxTokens: number;
    parseRetries: number;
    usage: TokenUsage;
    what: string;
    /** Structured outputs (../shared/structured-reply.ts), on an endpoint that honours them. */
    responseFormat?: ResponseFormatJsonSchema;
  },
): Promise<{ value: T } | { failed: string }> {
  let last = '';
  try {
    for (let i = 0; i <= o.parseRetries; i++) {
      const out = await chat({
        messages,
        decoding: { temperature: 0, maxTokens: o.maxTokens },
        sampleKey: i === 0 ? o.key : `${o.key}/retry-${i}`,
        ...(o.responseFormat ? { responseFormat: o.responseFormat } : {}),
      });
      addUsage(o.usage, out.usage);
      last = out.texts[0] ?? '';
      const value = read(last);
      if (value !== undefined) return { value };
    }
  } catch (err) {
    const failed = failsThisCallOnly(err);
    if (failed === undefined) throw err;
    return { failed };
  }
  return { failed: `the judge gave no readable ${o.what} in ${o.parseRetries + 1} replies; last: ${JSON.stringify(last.slice(-160))}` };
}
