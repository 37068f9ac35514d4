// What one TOA task produces. Evaluation: the student's one response to the prompt, scored by the reward role, and
// (recipe.compare) each compared method's search at the same N, summarised. Building data: the configured method's
// whole pool of N scored responses (texts kept: the data is drawn from them).
import type { TokenUsage } from '../../llm/types';
import type { Method } from './baselines';
import type { SearchRecord } from './run-search';
import { totalTokens } from '../../llm/usage';

/** A search without its responses' texts: what the evaluation compares. */
export interface SearchSummary extends Omit<SearchRecord, 'results'> {
  best?: { reward: number; model: string; play: number; action: string };
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
      ? { best: { reward: results.best.reward!, model: results.best.model, play: results.best.play, action: results.best.action } }
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
    Object.values(r.methods).reduce((a, m) => a + totalTokens(m!.policyUsage) + totalTokens(m!.rewardUsage), 0)
  );
};
