// The metrics of one conversation (a simulated future, or a whole evaluation conversation), computed as the seed's
// "extract_type->metric" signatures do (collabllm/metric/): document and code tasks first have an LLM extract the
// final artefact from the conversation, then BLEU against the reference or the unit tests; math asks the accuracy
// judge; interactivity asks its judge; token_amount counts the assistant's cl100k tokens. A judge that cannot be read is
// MISSING (MetricOutcome), never 0.
import type { Chat, ChatMessage, TokenUsage } from '../../llm/types';
import type { Prompts } from '../prompt-texts';
import type { CollabMetric } from './config';
import type { CollabCompat } from './seed-settings';
import { accuracyJudge, bleu, extractFinal, interactivityJudge, passRate, tokenAmount, type MetricOutcome } from './metrics';
import { entryPointRequirement } from './prompts';
import type { CollabTask } from './tasks';
import { addUsage } from '../../llm/usage';

/** Runs a candidate's code against the task's unit tests in the sandbox (activities/sandbox/unit-tests.ts). */
export type RunTaskTests = (task: CollabTask, code: string) => Promise<{ passed: boolean }>;

export interface ScoreContext {
  task: CollabTask;
  judge: Chat;
  extractor: Chat;
  runTests?: RunTaskTests;
  parseRetries: number;
  /** The extractor's re-asks; parseRetries when absent. */
  extractRetries?: number;
  maxTokens: number;
  /** How token_amount counts (metrics.ts tokenAmount); fixed when absent. */
  compat?: CollabCompat;
  /** The recipe's texts (judges, extractor). */
  prompts: Prompts;
}

/** `metrics` of `conversation`; `from`: index of the first message the assistant wrote in it that counts (tokens). */
export async function scoreConversation(
  conversation: ChatMessage[],
  from: number,
  metrics: readonly CollabMetric[],
  c: ScoreContext,
  key: string,
): Promise<{ metrics: Partial<Record<CollabMetric, MetricOutcome>>; usage: TokenUsage }> {
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  const judgeOptions = { prompts: c.prompts, parseRetries: c.parseRetries, key, maxTokens: c.maxTokens };
  // One extraction serves both artefact metrics of a future.
  let extracted: Promise<{ text: string } | { missing: string }> | undefined;
  const artefact = () => {
    extracted ??= extractFinal(
      c.extractor,
      {
        conversation,
        kind: c.task.kind === 'code' ? 'code' : 'document',
        requirement: c.task.code ? entryPointRequirement(c.prompts, c.task.code.entryPoint) : undefined,
      },
      { ...judgeOptions, parseRetries: c.extractRetries ?? c.parseRetries },
    ).then((e) => {
      addUsage(usage, e.usage);
      return 'text' in e ? { text: e.text } : { missing: e.missing };
    });
    return extracted;
  };
  const one = async (m: CollabMetric): Promise<MetricOutcome> => {
    switch (m) {
      case 'token_amount':
        return tokenAmount(conversation, from, c.compat);
      case 'accuracy': {
        const r = await accuracyJudge(c.judge, { question: c.task.prompt, groundTruth: c.task.answer, conversation }, judgeOptions);
        addUsage(usage, r.usage);
        return 'missing' in r ? { missing: r.missing } : { score: r.score };
      }
      case 'interactivity': {
        const r = await interactivityJudge(c.judge, { conversation }, judgeOptions);
        addUsage(usage, r.usage);
        return 'missing' in r ? { missing: r.missing } : { score: r.score };
      }
      case 'bleu': {
        const e = await artefact();
        return 'missing' in e ? e : bleu(c.task.answer, e.text);
      }
      case 'pass_rate': {
        if (!c.runTests || !c.task.code) return { missing: `task ${c.task.id} has no unit tests (pass_rate needs a code task)` };
        const e = await artefact();
        const run = c.runTests;
        const task = c.task;
        return 'missing' in e ? e : passRate(e.text, (code) => run(task, code));
      }
    }
  };
  const outcomes = await Promise.all(metrics.map(one));
  return { metrics: Object.fromEntries(metrics.map((m, i) => [m, outcomes[i]])), usage };
}
