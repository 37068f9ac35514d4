// What an iteration reports for CollabLLM (paper §5: task performance, interactivity, tokens): over the evaluation
// conversations, the task's success metric (accuracy / BLEU / pass rate), the interactivity judge, the assistant's
// words (thousands) and turns — each averaged over the conversations where it could be scored — and how many scores
// are missing (a judge or extraction that could not be read) or conversations a simulator failure cut short.
// Folded as conversations stream past (metrics-fold.ts): running means and counts, so evaluation memory stays flat.
import type { SuccessMetric } from './config';
import type { CollabEvalRecord } from './conversation';
import type { MetricOutcome } from './metrics';
import { foldRecords, type MetricsFold, RunningMean } from '../metrics-fold';
import type { MetricSpec } from '../../report/metric-kinds';

/** What each metric below is, for the report's plots (every success metric — accuracy, BLEU, pass rate — is 0–1). */
export const COLLAB_METRIC_KINDS: readonly MetricSpec[] = [
  { match: /^(task_success|accuracy|bleu|pass_rate|interactivity|terminated_rate)$/, kind: 'rate' },
  { match: /^(token_amount_k|assistant_turns|missing_scores|simulator_failures|conversations)$/, kind: 'count' },
];

/** A conversation's score of `metric`, when it has one (not missing, not cut short). */
const scoreOf = (r: CollabEvalRecord, metric: string): number | undefined => {
  const m = (r.metrics as Record<string, MetricOutcome | undefined>)[metric];
  return m && 'score' in m ? m.score : undefined;
};

export function collabMetricsFold(success: SuccessMetric): MetricsFold<CollabEvalRecord> {
  const scored = { success: new RunningMean(), interactivity: new RunningMean(), tokens: new RunningMean() };
  const turns = new RunningMean();
  const terminated = new RunningMean();
  let missing = 0;
  let simulatorFailures = 0;
  let conversations = 0;
  const addScore = (mean: RunningMean, x: number | undefined) => x !== undefined && mean.add(x);
  return {
    add(r) {
      addScore(scored.success, scoreOf(r, success));
      addScore(scored.interactivity, scoreOf(r, 'interactivity'));
      addScore(scored.tokens, scoreOf(r, 'token_amount'));
      turns.add(r.conversation.filter((m) => m.role === 'assistant').length);
      terminated.add(r.ending === 'terminated' ? 1 : 0);
      missing += Object.values(r.metrics).filter((m) => m && 'missing' in m).length;
      simulatorFailures += r.simulatorFailures;
      conversations++;
    },
    result: () => ({
      task_success: scored.success.value,
      [success]: scored.success.value,
      interactivity: scored.interactivity.value,
      token_amount_k: scored.tokens.value,
      assistant_turns: turns.value,
      terminated_rate: terminated.value,
      missing_scores: missing,
      simulator_failures: simulatorFailures,
      conversations,
    }),
  };
}

export const collabMetrics = (records: readonly CollabEvalRecord[], success: SuccessMetric): Record<string, number> =>
  foldRecords(collabMetricsFold(success), records);
