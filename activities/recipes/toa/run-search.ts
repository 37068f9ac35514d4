// ★ ONE PROMPT, ONE METHOD: drives a planner (search.ts for TOA, baselines.ts for the rest) through its N plays —
// each play one policy call (generate, refine or aggregate) and one reward call — strictly in order, as in the seed
// (parallelism comes from many prompts at once). Every call goes through the durable request cache under a key
// naming (task, sample, method, play), so a search rerun after a killed worker replays its completed plays from the
// cache — same texts, same rewards, hence the same tree — and continues at the first unpaid play.
import type { Chat, ChatMessage, Decoding, TokenUsage } from '../../llm/types';
import { addUsage } from '../../llm/usage';
import { hashSeed } from '../../seeded-random';
import { planner, type Method, type PlanParams } from './baselines';
import { type ModelCompute, promptFlops } from './flops';
import type { Prompts } from '../prompt-texts';
import { aggregatePrompt, generatePrompt, refinePrompt } from './prompts';
import { type RewardOutcome, scoreResponse } from './reward';
import type { Call, Results } from './search';
import type { ToaTask } from './tasks';

export interface SearchRecord {
  method: Method;
  /** N: the plays of every method. */
  budget: number;
  results: Results;
  /** Policy FLOPs of the prompt's calls (recipe.flops gives every policy's size). */
  flops: number;
  unmeteredCalls: number;
  policyUsage: TokenUsage;
  rewardUsage: TokenUsage;
}

export interface SearchRun {
  task: ToaTask;
  method: Method;
  /** The planner's models (role names) and samples: single-agent methods get one model and samples = N. */
  params: PlanParams;
  chats: Record<string, Chat>;
  reward: Chat;
  decoding: Decoding;
  judge: { maxTokens: number; parseRetries: number };
  /** The recipe's texts (prompts.ts TOA_PROMPTS, replaced by the config's `prompts:` file). */
  prompts: Prompts;
  topK: number;
  flops: Record<string, ModelCompute>;
  seed: number;
  key: string;
}

/** One answer and its score: `who` (a policy, or the student) answers `messages`; the reward role scores the text
 *  against the original question. An empty answer is failed without a reward call. */
export async function answerAndScore(o: {
  who: string;
  policy: Chat;
  reward: Chat;
  task: ToaTask;
  messages: ChatMessage[];
  decoding: Decoding;
  judge: { maxTokens: number; parseRetries: number };
  prompts: Prompts;
  key: string;
}): Promise<{ text: string; usage: TokenUsage; scored: RewardOutcome }> {
  const out = await o.policy({ messages: o.messages, decoding: o.decoding, sampleKey: o.key });
  const text = (out.texts[0] ?? '').trim();
  const scored = text
    ? await scoreResponse(o.reward, o.task, text, { key: `${o.key}/reward`, ...o.judge, prompts: o.prompts })
    : { failed: `${o.who} returned an empty response`, usage: { promptTokens: 0, completionTokens: 0 } };
  return { text, usage: out.usage, scored };
}

function messagesFor(p: Prompts, task: ToaTask, call: Call) {
  if (call.action === 'generate') return generatePrompt(p, task);
  if (call.action === 'refine') return refinePrompt(p, task, call.parentText ?? '');
  return aggregatePrompt(p, task, call.parentTexts ?? []);
}

export async function runSearch(r: SearchRun): Promise<SearchRecord> {
  const plan = planner(r.method, r.params);
  const policyUsage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  const rewardUsage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  let s = plan.newState();
  for (let call = plan.nextPlay(s); call; call = plan.nextPlay(s)) {
    const key = `${r.key}/${r.method}/p${call.play}`;
    const { text, usage, scored } = await answerAndScore({
      who: call.model,
      policy: r.chats[call.model],
      reward: r.reward,
      task: r.task,
      messages: messagesFor(r.prompts, r.task, call),
      decoding: { ...r.decoding, seed: hashSeed(r.seed, r.task.id, key) },
      judge: r.judge,
      prompts: r.prompts,
      key,
    });
    addUsage(policyUsage, usage);
    addUsage(rewardUsage, scored.usage);
    s = plan.applyPlay(s, call, 'reward' in scored ? { text, reward: scored.reward, usage } : { text, failed: scored.failed, usage });
  }
  const results = plan.results(s, r.topK);
  const f = promptFlops(
    r.flops,
    results.responses.map((x) => ({ model: x.model, usage: x.usage })),
  );
  return { method: r.method, budget: plan.budget, results, flops: f.flops, unmeteredCalls: f.unmeteredCalls, policyUsage, rewardUsage };
}
