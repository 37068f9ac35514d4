// What an iteration reports for TOA: the student's mean reward (the loop's headline: does training on the search's
// best responses make the student better?), and per compared method at the same N (arXiv 2412.17061 §4 and its
// scaling plot, oceanypt/TOA figures/scaling_alpaca_eval.png):
// the mean best reward, the mean top-k reward, policy TFLOPs per prompt and failed scores (which policy wrote each
// best response is in the records and the report).
import type { RecipeFigure } from '../types';
import type { Method } from './baselines';
import type { SearchSummary, ToaEvalRecord } from './records';
import { meanOf } from '../shared/mean';
import type { MetricSpec } from '../../report/metric-kinds';
import { JUDGED_METRIC_KINDS, judgedMetrics } from './judged-metrics';

/** What each metric below is, for the report's plots: rewards are the reward model's scale (own range); one line
 *  per compared method. */
export const TOA_METRIC_KINDS: readonly MetricSpec[] = [
  { match: /^(failed_rewards|prompts)$/, kind: 'count' },
  { match: 'reward', kind: 'value' },
  { match: /^(.+)\/best_reward$/, kind: 'value', plot: 'best reward per method', line: '$1' },
  { match: /^(.+)\/topk_reward$/, kind: 'value', plot: 'top-k reward per method', line: '$1' },
  { match: /^(.+)\/tflops$/, kind: 'count', plot: 'policy TFLOPs per prompt, per method', line: '$1' },
  { match: /^(.+)\/failed_rewards$/, kind: 'count', plot: 'failed rewards per method', line: '$1' },
  ...JUDGED_METRIC_KINDS,
];

/** A mean over no scores is left out of the metrics (missing, never 0). */
const put = (out: Record<string, number>, key: string, v: number | undefined) => {
  if (v !== undefined) out[key] = v;
};

/** `judging`: the bootstrap rounds and seed of the evaluation's Arena-Hard interval (judged-metrics.ts). */
export function toaMetrics(records: readonly ToaEvalRecord[], judging = { bootstrap: 100, seed: 0 }): Record<string, number> {
  const scored = records.flatMap((r) => (r.student.reward !== undefined ? [r.student.reward] : []));
  const out: Record<string, number> = {
    failed_rewards: records.filter((r) => r.student.reward === undefined).length,
    prompts: records.length,
  };
  put(out, 'reward', meanOf(scored));
  const methods = [...new Set(records.flatMap((r) => Object.keys(r.methods)))];
  for (const m of methods) {
    const runs = records.flatMap((r) => (r.methods[m as keyof typeof r.methods] ? [r.methods[m as keyof typeof r.methods]!] : []));
    put(out, `${m}/best_reward`, meanOf(runs.flatMap((s) => (s.best ? [s.best.reward] : []))));
    put(out, `${m}/topk_reward`, meanOf(runs.flatMap((s) => (s.topK.mean !== undefined ? [s.topK.mean] : []))));
    out[`${m}/tflops`] = runs.reduce((a, s) => a + s.flops, 0) / runs.length / 1e12;
    out[`${m}/failed_rewards`] = runs.reduce((a, s) => a + s.failed, 0);
  }
  return { ...out, ...judgedMetrics(records, judging) };
}

/** The report's scaling figures (the paper's reward-vs-compute plot): per method, each prompt's mean top-k reward and
 *  best reward against its policy FLOPs. */
export function rewardVsFlops(records: readonly ToaEvalRecord[]): RecipeFigure[] {
  const methods = [...new Set(records.flatMap((r) => Object.keys(r.methods)))] as Method[];
  const figure = (id: string, yLabel: string, y: (s: SearchSummary) => number | undefined): RecipeFigure => ({
    id,
    title: `${yLabel} against policy FLOPs per prompt, per method`,
    xLabel: 'FLOPs per prompt',
    yLabel,
    series: methods.map((m) => ({
      name: m,
      points: records.flatMap((r) => {
        const s = r.methods[m];
        const v = s ? y(s) : undefined;
        return s && v !== undefined ? [[s.flops, v] as [number, number]] : [];
      }),
    })),
  });
  if (!methods.length) return [];
  return [figure('topk-vs-flops', 'mean top-k reward', (s) => s.topK.mean), figure('best-vs-flops', 'best reward', (s) => s.best?.reward)];
}
