// evaluate: the recipe's metrics over the evaluation split's records.
import type { StageStats } from '../../contracts/run';
import { scheduled, stageActivities } from '../activity-proxies';
import { summary } from '../iteration-progress';
import { conversationsIn, recordsOf, stageContext, type IterationState } from '../iteration-state';
import { evaluateSummary } from '../stage-summaries';

export async function evaluate(s: IterationState, _stats: StageStats): Promise<void> {
  const shards = recordsOf(s, 'eval');
  s.evaluation = await scheduled(stageActivities(s.config).cpu.evaluateIteration, summary(s, evaluateSummary(conversationsIn(shards))), {
    ...stageContext(s),
    checkpoint: s.checkpoint,
    shards,
  });
  s.status.metrics = s.evaluation.metrics;
}
