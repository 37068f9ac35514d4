// What an iteration reports for CollabLLM (paper §5: task performance, interactivity, tokens): over the evaluation
// conversations, the task's success metric (accuracy / BLEU / pass rate), the interactivity judge, the assistant's
// words (thousands) and turns — each averaged over the conversations where it could be scored — and how many scores
// are missing (a judge or extraction that could not be read) or conversations a simulator failure cut short.
import type { SuccessMetric } from './config';
import type { CollabEvalRecord } from './conversation';
import type { MetricOutcome } from './metrics';
import { meanOf } from '../shared/mean';
import type { MetricSpec } from '../../report/metric-kinds';

/** What each metric below is, for the report's plots (every success metric — accuracy, BLEU, pass rate — is 0–1). */
export const COLLAB_METRIC_KINDS: readonly MetricSpec[] = [
  { match: /^(task_success|accuracy|bleu|pass_rate|interactivity|terminated_rate)$/, kind: 'rate' },
  { match: /^(token_amount_k|assistant_turns|missing_scores|simulator_failures|conversations)$/, kind: 'count' },
];

const mean = (xs: readonly number[]) => meanOf(xs) ?? 0;
const scores = (records: readonly CollabEvalRecord[], metric: string) =>
  records.flatMap((r) => {
    const m = (r.metrics as Record<string, MetricOutcome | undefined>)[metric];
    return m && 'score' in m ? [m.score] : [];
  });

export function collabMetrics(records: readonly CollabEvalRecord[], success: SuccessMetric): Record<string, number> {
  const missing = records.reduce((a, r) => a + Object.values(r.metrics).filter((m) => m && 'missing' in m).length, 0);
  return {
    task_success: mean(scores(records, success)),
    [success]: mean(scores(records, success)),
    interactivity: mean(scores(records, 'interactivity')),
    token_amount_k: mean(scores(records, 'token_amount')),
    assistant_turns: mean(records.map((r) => r.conversation.filter((m) => m.role === 'assistant').length)),
    terminated_rate: mean(records.map((r) => (r.ending === 'terminated' ? 1 : 0))),
    missing_scores: missing,
    simulator_failures: records.reduce((a, r) => a + r.simulatorFailures, 0),
    conversations: records.length,
  };
}
