// The project's metrics only the workflow knows: a stage that needs attention, the budget spent against its limit,
// and how long stages take. They go out on the workflow's metric meter (@temporalio/workflow `metricMeter`), which
// the workflow worker hands to its runtime's meter — the Prometheus endpoint of `collab-loop worker --metrics-port`,
// beside the activities' counters (activities/metrics.ts). The meter is a sink: it adds no command and no history
// event, and the SDK drops its calls while a workflow replays (node_modules/@temporalio/workflow/lib/metrics.js), so
// emitting here changes nothing a recorded history replays. The `run` label is the activities' (run-data-name.ts).
import { metricMeter } from '@temporalio/workflow';
import type { Spend, Stage } from '../contracts/run';
import { runDataName } from '../contracts/run-data-name';
import type { IterationState } from './iteration-state';

const run = (s: IterationState) => runDataName(s.input);

/** 1 while `stage` of the run waits for the user (needs attention), 0 once retried or the run is stopped. */
export function setNeedsAttention(s: IterationState, stage: Stage, waiting: boolean): void {
  metricMeter
    .createGauge('collab_loop_needs_attention', 'int', '', 'runs whose stage waits for the user (1) after failing its retries')
    .set(waiting ? 1 : 0, { run: run(s), stage });
}

/** What the run has spent so far (budget.ts runSpent: earlier iterations and this one's finished shards and data
 *  build), in tokens and US dollars, and its `budget` where it has one: the figures the budget check compares. */
export function reportBudget(s: IterationState, spent: Spend): void {
  const gauge = (name: string, description: string) => metricMeter.createGauge(name, 'float', '', description);
  const spentGauge = gauge('collab_loop_budget_spent', "the run's LLM spend so far, by unit (tokens, usd)");
  spentGauge.set(spent.tokens, { run: run(s), unit: 'tokens' });
  spentGauge.set(spent.usd, { run: run(s), unit: 'usd' });
  const b = s.config.budget;
  const limitGauge = gauge('collab_loop_budget_limit', "the run's budget, by unit (tokens, usd)");
  if (b?.tokens !== undefined) limitGauge.set(b.tokens, { run: run(s), unit: 'tokens' });
  if (b?.usd !== undefined) limitGauge.set(b.usd, { run: run(s), unit: 'usd' });
}

/** A stage that finished: its time (all its attempts, not the waits for a user), by stage and recipe. Buckets:
 *  workers/logging.ts STAGE_SECONDS_BUCKETS. */
export function recordStageDuration(s: IterationState, stage: Stage, ms: number): void {
  metricMeter
    .createHistogram('collab_loop_stage_seconds', 'float', 's', 'time a finished stage took, by stage and recipe')
    .record(ms / 1000, { stage, recipe: s.config.recipe.name });
}
