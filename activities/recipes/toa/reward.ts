// The reward role's score of one response, asked the way its endpoint speaks (activities/llm/scoring-api.ts): an LLM
// judge (chat) gets our judging prompt and answers a score from 1 to 10; a reward model (vLLM's reward API) and a
// scoring service (COMET-KIWI style) get the bare (question or source, response) pair. Every response is scored
// against the ORIGINAL question, never the refine or aggregate prompt (the seed's reward call, oceanypt/TOA code/ensemble_methods.py).
// An unreadable or rejected score is FAILED, never 0 (the seed silently scores errors 0.0); a retryable endpoint
// failure that outlasts the client's retries propagates, so the shard retries and paid calls come from the cache.
import type { Chat, TokenUsage } from '../../llm/types';
import { addUsage } from '../../llm/usage';
import type { Prompts } from '../prompt-texts';
import { askUntilReadable, failsThisCallOnly } from './judge-call';
import { judgePrompt, judgeScoreReply, parseJudgeScore, rewardQuestion } from './prompts';
import { replyReader } from '../shared/structured-reply';
import type { ToaTask } from './tasks';

export type RewardOutcome = { reward: number; usage: TokenUsage } | { failed: string; usage: TokenUsage };

export async function scoreResponse(
  chat: Chat,
  task: ToaTask,
  response: string,
  o: { key: string; maxTokens: number; parseRetries: number; prompts: Prompts },
): Promise<RewardOutcome> {
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  if (chat.api === 'reward' || chat.api === 'score') {
    try {
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
    } catch (err) {
      const failed = failsThisCallOnly(err);
      if (failed === undefined) throw err;
      return { failed, usage };
    }
  }
  const reader = replyReader(chat, judgeScoreReply, 'judge_score', { parse: parseJudgeScore, pick: (r) => r.score });
  const asked = await askUntilReadable(chat, judgePrompt(o.prompts, task, response), reader.read, {
    ...o,
    usage,
    what: 'score',
    responseFormat: reader.responseFormat,
  });
  return 'value' in asked ? { reward: asked.value, usage } : { failed: asked.failed, usage };
}
