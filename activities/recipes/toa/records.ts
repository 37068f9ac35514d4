// What one TOA task produces. Evaluation: the student's one response to the prompt, scored by the reward role, and
// (recipe.compare) each compared method's search at the same N, summarised with its best response's text (what the
// paper's AlpacaEval / Arena-Hard / KIWI tables judge); with recipe.evaluation, the student's text and each method's
// best text judged against the prompt's reference output (evaluation.ts). Building data: the configured method's
// whole pool of N scored responses (texts kept: the data is drawn from them).
import type { TokenUsage } from '../../llm/types';
import type { Method } from './baselines';
import type { PairJudgement } from './evaluation';
import type { SearchRecord } from './run-search';
import { totalTokens } from '../../llm/usage';

/** A search without its responses but the best one: what the evaluation compares. */
export interface SearchSummary extends Omit<SearchRecord, 'results'> {
  /** `text` is absent in records written before it was kept. */
  best?: { reward: number; model: string; play: number; action: string; text?: string };
  topK: { k: number; mean?: number };
  meanReward?: number;
  failed: number;
  actions: Record<string, number>;
}

export interface ToaEvalRecord {
  kind: 'eval';
  taskId: string;
  sampleIndex: number;
  student: { text: string; reward?: number; failed?: string; usage: TokenUsage };
  methods: Partial<Record<Method, SearchSummary>>;
  /** recipe.evaluation: per judged text (`student`, or a method's best) its judgement against the reference. */
  judged?: Record<string, PairJudgement>;
  /** recipe.evaluation.kiwi: per text (`student`, or a method's best) its KIWI score of (source, text). */
  kiwi?: Record<string, { score: number } | { failed: string }>;
}

export interface ToaBuildRecord {
  kind: 'build';
  taskId: string;
  sampleIndex: number;
  search: SearchRecord;
}

export function summarizeSearch(r: SearchRecord): SearchSummary {
  const { results, ...rest } = r;
  return {
    ...rest,
    ...(results.best
      ? {
          best: {
            reward: results.best.reward!,
            model: results.best.model,
            play: results.best.play,
            action: results.best.action,
            text: results.best.text,
          },
        }
      : {}),
    topK: results.topK,
    ...(results.meanReward !== undefined ? { meanReward: results.meanReward } : {}),
    failed: results.failed,
    actions: results.actions,
  };
}

export const recordTokens = (r: ToaEvalRecord | ToaBuildRecord): number => {
  if (r.kind === 'build') return totalTokens(r.search.policyUsage) + totalTokens(r.search.rewardUsage);
  return (
    totalTokens(r.student.usage) +
    Object.values(r.methods).reduce((a, m) => a + totalTokens(m!.policyUsage) + totalTokens(m!.rewardUsage), 0) +
    Object.values(r.judged ?? {}).reduce((a, j) => a + totalTokens(j.usage), 0)
  );
};
