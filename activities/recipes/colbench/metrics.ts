// ColBench metrics under the seed's definitions (sweet_rl scripts/evaluate_code.py, utils/code_utils.py; sweet_rl scripts/evaluate_html.py), each a per-episode value averaged over all
// episodes (every sample of a task counts on its own), plus best-of-k: per task, the max over its first k samples,
// averaged over tasks. Zero episodes give zeros (with `episodes: 0`), never NaN: metrics travel as JSON numbers.
import { trajectoryTokens, type ColbenchTrajectory } from './episode';
import type { CodeScore, HtmlScore } from './scoring';
import { meanOf } from '../shared/mean';
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

const mean = (xs: readonly number[]) => meanOf(xs) ?? 0;

interface Common {
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
}

function common(records: readonly ColbenchTrajectory[]): Common {
  const humanTurns = records.reduce((a, r) => a + r.dialogue.filter((t) => t.role === 'human').length, 0);
  const noResponse = records.reduce((a, r) => a + r.humanNoResponse, 0);
  const total = records.reduce((a, r) => a + trajectoryTokens(r), 0);
  return {
    answered_rate: mean(records.map((r) => (r.answeredWithMarker ? 1 : 0))),
    avg_agent_turns: mean(records.map((r) => r.agentTurns)),
    human_no_response_rate: humanTurns ? noResponse / humanTurns : 0,
    total_tokens: total,
    agent_tokens: records.reduce((a, r) => a + totalTokens(r.usage.agent), 0),
    avg_tokens_per_episode: records.length ? total / records.length : 0,
    episodes: records.length,
  };
}

/**
 * Per task, the best `value` among its samples with sampleIndex < k (all samples when k is omitted), averaged over
 * tasks. A task with no sample below k does not count.
 */
export function bestOfK<T extends { taskId: string; sampleIndex: number }>(
  records: readonly T[],
  value: (r: T) => number,
  k?: number,
): number {
  const best = new Map<string, number>();
  for (const r of records) {
    if (k !== undefined && r.sampleIndex >= k) continue;
    const v = value(r);
    best.set(r.taskId, Math.max(best.get(r.taskId) ?? -Infinity, v));
  }
  return mean([...best.values()]);
}

export interface ColbenchCodeMetrics extends Common {
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
}

export function colbenchCodeMetrics(records: readonly ScoredCodeTrajectory[], opts: { bestOfK?: number } = {}): ColbenchCodeMetrics {
  const m: ColbenchCodeMetrics = {
    success_rate: mean(records.map((r) => (r.score.success ? 1 : 0))),
    tests_passed_fraction: mean(records.map((r) => r.score.fraction)),
    rejected_rate: mean(records.map((r) => (r.score.rejected ? 1 : 0))),
    reference_error_tests: records.reduce((a, r) => a + r.score.reasons.reference_error, 0),
    ...common(records),
  };
  const k = opts.bestOfK;
  if (k && k > 1) {
    m[`best_of_${k}_success_rate`] = bestOfK(records, (r) => (r.score.success ? 1 : 0), k);
    m[`best_of_${k}_tests_passed_fraction`] = bestOfK(records, (r) => r.score.fraction, k);
  }
  return m;
}

export interface ColbenchHtmlMetrics extends Common {
  /** Headline: mean similarity of the final render with the reference render (the seed: CLIP cosine). */
  mean_similarity: number;
  /** Episodes that left a render to score. */
  rendered_rate: number;
  [bestOf: `best_of_${number}_${string}`]: number;
}

export function colbenchHtmlMetrics(records: readonly ScoredHtmlTrajectory[], opts: { bestOfK?: number } = {}): ColbenchHtmlMetrics {
  const m: ColbenchHtmlMetrics = {
    mean_similarity: mean(records.map((r) => r.score.similarity)),
    rendered_rate: mean(records.map((r) => (r.score.answered ? 1 : 0))),
    ...common(records),
  };
  const k = opts.bestOfK;
  if (k && k > 1) m[`best_of_${k}_mean_similarity`] = bestOfK(records, (r) => r.score.similarity, k);
  return m;
}
