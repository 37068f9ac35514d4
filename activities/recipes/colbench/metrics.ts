// ColBench metrics under the seed's definitions (sweet_rl scripts/evaluate_code.py, utils/code_utils.py; sweet_rl scripts/evaluate_html.py), each a per-episode value averaged over all
// episodes (every sample of a task counts on its own), plus best-of-k: per task, the max over its first k samples,
// averaged over tasks. Zero episodes give zeros (with `episodes: 0`), never NaN: metrics travel as JSON numbers.
// Folded as episodes stream past (metrics-fold.ts): running means and sums, and for best-of-k one task's values at a
// time, so evaluation memory stays flat.
import { trajectoryTokens, type ColbenchTrajectory } from './episode';
import type { CodeScore, HtmlScore } from './scoring';
import { foldRecords, type MetricsFold, RunningMean } from '../metrics-fold';
import { taskGroups } from '../task-groups';
import { totalTokens } from '../../llm/usage';
import type { MetricSpec } from '../../report/metric-kinds';

/** What each metric below is, for the report's plots (code and html alike). mean_similarity is a 0–1 similarity. */
export const COLBENCH_METRIC_KINDS: readonly MetricSpec[] = [
  {
    match:
      /^(best_of_\d+_)?(success_rate|tests_passed_fraction|mean_similarity)$|^(rejected_rate|rendered_rate|answered_rate|human_no_response_rate)$/,
    kind: 'rate',
  },
  { match: /^(reference_error_tests|avg_agent_turns|total_tokens|agent_tokens|avg_tokens_per_episode|episodes)$/, kind: 'count' },
];

export type ScoredCodeTrajectory = ColbenchTrajectory & { score: CodeScore };
export type ScoredHtmlTrajectory = ColbenchTrajectory & { score: HtmlScore };

// Types, not interfaces: they are Record<string, number>s where the generic stages take one.
type Common = {
  /** The agent answered with the marker before running out of turns. */
  answered_rate: number;
  avg_agent_turns: number;
  /** Human calls the endpoint rejected ("No response.") over all human calls. */
  human_no_response_rate: number;
  /** Prompt + completion tokens of agent and human calls, summed over episodes. */
  total_tokens: number;
  agent_tokens: number;
  avg_tokens_per_episode: number;
  episodes: number;
};

function commonFold(): MetricsFold<ColbenchTrajectory, Common> {
  const answered = new RunningMean();
  const turns = new RunningMean();
  let humanTurns = 0;
  let noResponse = 0;
  let total = 0;
  let agent = 0;
  let episodes = 0;
  return {
    add(r) {
      answered.add(r.answeredWithMarker ? 1 : 0);
      turns.add(r.agentTurns);
      humanTurns += r.dialogue.filter((t) => t.role === 'human').length;
      noResponse += r.humanNoResponse;
      total += trajectoryTokens(r);
      agent += totalTokens(r.usage.agent);
      episodes++;
    },
    result: () => ({
      answered_rate: answered.value,
      avg_agent_turns: turns.value,
      human_no_response_rate: humanTurns ? noResponse / humanTurns : 0,
      total_tokens: total,
      agent_tokens: agent,
      avg_tokens_per_episode: episodes ? total / episodes : 0,
      episodes,
    }),
  };
}

/**
 * Per task, the best `value` among its samples with sampleIndex < k (all samples when k is omitted), averaged over
 * tasks. A task with no sample below k does not count. Records come task-major (the plan's order): one task's
 * values are held at a time.
 */
function bestOfKFold<T extends { taskId: string; sampleIndex: number }>(value: (r: T) => number, k?: number): MetricsFold<T, number> {
  const mean = new RunningMean();
  const tasks = taskGroups<{ taskId: string; v: number }>('colbench best-of-k', (task) =>
    mean.add(task.reduce((a, x) => Math.max(a, x.v), Number.NEGATIVE_INFINITY)),
  );
  return {
    add(r) {
      if (k === undefined || r.sampleIndex < k) tasks.add({ taskId: r.taskId, v: value(r) });
    },
    result() {
      tasks.end();
      return mean.value;
    },
  };
}

export const bestOfK = <T extends { taskId: string; sampleIndex: number }>(
  records: readonly T[],
  value: (r: T) => number,
  k?: number,
): number => foldRecords(bestOfKFold(value, k), records);

/** Best-of-k folds by metric name, when k > 1. */
function bestOfKFolds<T extends { taskId: string; sampleIndex: number }>(
  k: number | undefined,
  values: Record<string, (r: T) => number>,
): Array<[string, MetricsFold<T, number>]> {
  return k && k > 1 ? Object.entries(values).map(([name, value]) => [`best_of_${k}_${name}`, bestOfKFold(value, k)]) : [];
}

export type ColbenchCodeMetrics = Common & {
  /** Headline: share of episodes whose answer passes every hidden test (the seed's "success rate"). */
  success_rate: number;
  /** Mean fraction of hidden tests passed (the seed's "average correctness" / "% tests passed"). */
  tests_passed_fraction: number;
  /** Answers the sandbox refused (forbidden text) or that were missing, over all episodes. */
  rejected_rate: number;
  /** Hidden-test runs whose reference failed (raised, None, timed out), summed over episodes: not the answers' fault,
   *  left out of the fractions under `compat: fixed`; above 0 the task file has broken references. */
  reference_error_tests: number;
  [bestOf: `best_of_${number}_${string}`]: number;
};

export function colbenchCodeMetricsFold(opts: { bestOfK?: number } = {}): MetricsFold<ScoredCodeTrajectory, ColbenchCodeMetrics> {
  const success = new RunningMean();
  const fraction = new RunningMean();
  const rejected = new RunningMean();
  let referenceErrors = 0;
  const common = commonFold();
  const best = bestOfKFolds<ScoredCodeTrajectory>(opts.bestOfK, {
    success_rate: (r) => (r.score.success ? 1 : 0),
    tests_passed_fraction: (r) => r.score.fraction,
  });
  return {
    add(r) {
      success.add(r.score.success ? 1 : 0);
      fraction.add(r.score.fraction);
      rejected.add(r.score.rejected ? 1 : 0);
      referenceErrors += r.score.reasons.reference_error;
      common.add(r);
      for (const [, b] of best) b.add(r);
    },
    result: () => ({
      success_rate: success.value,
      tests_passed_fraction: fraction.value,
      rejected_rate: rejected.value,
      reference_error_tests: referenceErrors,
      ...common.result(),
      ...Object.fromEntries(best.map(([name, b]) => [name, b.result()])),
    }),
  };
}

export const colbenchCodeMetrics = (records: readonly ScoredCodeTrajectory[], opts: { bestOfK?: number } = {}): ColbenchCodeMetrics =>
  foldRecords(colbenchCodeMetricsFold(opts), records);

export type ColbenchHtmlMetrics = Common & {
  /** Headline: mean similarity of the final render with the reference render (the seed: CLIP cosine). */
  mean_similarity: number;
  /** Episodes that left a render to score. */
  rendered_rate: number;
  [bestOf: `best_of_${number}_${string}`]: number;
};

export function colbenchHtmlMetricsFold(opts: { bestOfK?: number } = {}): MetricsFold<ScoredHtmlTrajectory, ColbenchHtmlMetrics> {
  const similarity = new RunningMean();
  const rendered = new RunningMean();
  const common = commonFold();
  const best = bestOfKFolds<ScoredHtmlTrajectory>(opts.bestOfK, { mean_similarity: (r) => r.score.similarity });
  return {
    add(r) {
      similarity.add(r.score.similarity);
      rendered.add(r.score.answered ? 1 : 0);
      common.add(r);
      for (const [, b] of best) b.add(r);
    },
    result: () => ({
      mean_similarity: similarity.value,
      rendered_rate: rendered.value,
      ...common.result(),
      ...Object.fromEntries(best.map(([name, b]) => [name, b.result()])),
    }),
  };
}

export const colbenchHtmlMetrics = (records: readonly ScoredHtmlTrajectory[], opts: { bestOfK?: number } = {}): ColbenchHtmlMetrics =>
  foldRecords(colbenchHtmlMetricsFold(opts), records);
