// The reward role's score of one response, asked the way its endpoint speaks (activities/llm/scoring-api.ts): an LLM
// judge (chat) gets our judging prompt and answers a score from 1 to 10; a reward model (vLLM's reward API) and a
// scoring service (COMET-KIWI style) get the bare (question or source, response) pair. Every response is scored
// against the ORIGINAL question, never the refine or aggregate prompt (the seed's reward call, oceanypt/TOA code/ensemble_methods.py).
// An unreadable or rejected score is FAILED, never 0 (the seed silently scores errors 0.0); a retryable endpoint
// failure that outlasts the client's retries propagates, so the shard retries and paid calls come from the cache.
import { ApplicationFailure } from '@temporalio/common';
import type { Chat, TokenUsage } from '../../llm/types';
import { addUsage } from '../../llm/usage';
import { SERVED_ENDPOINT_GONE } from '../../../contracts/errors';
import type { Prompts } from '../prompt-texts';
import { judgePrompt, parseJudgeScore, rewardQuestion } from './prompts';
import type { ToaTask } from './tasks';

export type RewardOutcome = { reward: number; usage: TokenUsage } | { failed: string; usage: TokenUsage };

export async function scoreResponse(
  chat: Chat,
  task: ToaTask,
  response: string,
  o: { key: string; maxTokens: number; parseRetries: number; prompts: Prompts },
): Promise<RewardOutcome> {
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  try {
    if (chat.api === 'reward' || chat.api === 'score') {
      const out = await chat({
        messages: [
          { role: 'user', content: rewardQuestion(task) },
          { role: 'assistant', content: response },
        ],
        decoding: { temperature: 0, maxTokens: 1 },
        sampleKey: o.key,
      });
      addUsage(usage, out.usage);
      const reward = Number(out.texts[0]);
      return Number.isFinite(reward)
        ? { reward, usage }
        : { failed: `the reward endpoint answered ${JSON.stringify(out.texts[0])}`, usage };
    }
    let last = '';
    for (let i = 0; i <= o.parseRetries; i++) {
      const out = await chat({
        messages: judgePrompt(o.prompts, task, response),
        decoding: { temperature: 0, maxTokens: o.maxTokens },
        sampleKey: i === 0 ? o.key : `${o.key}/retry-${i}`,
      });
      addUsage(usage, out.usage);
      last = out.texts[0] ?? '';
      const reward = parseJudgeScore(last);
      if (reward !== undefined) return { reward, usage };
    }
    return {
      failed: `the judge gave no readable score in ${o.parseRetries + 1} replies; last: ${JSON.stringify(last.slice(0, 160))}`,
      usage,
    };
  } catch (err) {
    // A request the endpoint rejects for good (e.g. 400: the response is too long for the reward model) fails this
    // response only; anything retryable is the activity's to retry, and a spent budget or a lost loop-served
    // server (../../llm/served-gone.ts: the iteration deploys again) stops the whole shard.
    const stopsShard = ['BudgetReached', SERVED_ENDPOINT_GONE];
    if (err instanceof ApplicationFailure && err.nonRetryable && !stopsShard.includes(err.type ?? ''))
      return { failed: err.message, usage };
    throw err;
  }
}
