// What an iteration reports for TOA: the student's mean reward (the loop's headline: does training on the search's
// best responses make the student better?), and per compared method at the same N (arXiv 2412.17061 §4 and its
// scaling plot, oceanypt/TOA figures/scaling_alpaca_eval.png):
// the mean best reward, the mean top-k reward, policy TFLOPs per prompt and failed scores (which policy wrote each
// best response is in the records and the report).
import type { RecipeFigure } from '../types';
import type { Method } from './baselines';
import type { SearchSummary, ToaEvalRecord } from './records';
import { foldRecords, type MetricsFold, RunningMean } from '../metrics-fold';
import type { MetricSpec } from '../../report/metric-kinds';
import { JUDGED_METRIC_KINDS, judgedMetricsFold } from './judged-metrics';

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

/** A compared method's runs so far: a method named by any record is reported, even where no record ran it. */
class MethodRuns {
  readonly best = new RunningMean();
  readonly topK = new RunningMean();
  flops = 0;
  runs = 0;
  failed = 0;
  add(s: SearchSummary): void {
    if (s.best) this.best.add(s.best.reward);
    if (s.topK.mean !== undefined) this.topK.add(s.topK.mean);
    this.flops += s.flops;
    this.runs++;
    this.failed += s.failed;
  }
}

/** The metrics as records stream past (metrics-fold.ts): running sums per method, and the judged rates' compact
 *  per-prompt numbers (judged-metrics.ts). `judging`: the bootstrap rounds and seed of the evaluation's Arena-Hard
 *  interval. */
export function toaMetricsFold(judging = { bootstrap: 100, seed: 0 }): MetricsFold<ToaEvalRecord> {
  const reward = new RunningMean();
  let failed = 0;
  let prompts = 0;
  const methods = new Map<string, MethodRuns>();
  const judged = judgedMetricsFold(judging);
  return {
    add(r) {
      prompts++;
      if (r.student.reward !== undefined) reward.add(r.student.reward);
      else failed++;
      for (const [m, s] of Object.entries(r.methods)) {
        let runs = methods.get(m);
        if (!runs) methods.set(m, (runs = new MethodRuns()));
        if (s) runs.add(s);
      }
      judged.add(r);
    },
    result() {
      const out: Record<string, number> = { failed_rewards: failed, prompts };
      put(out, 'reward', reward.mean);
      for (const [m, s] of methods) {
        put(out, `${m}/best_reward`, s.best.mean);
        put(out, `${m}/topk_reward`, s.topK.mean);
        out[`${m}/tflops`] = s.flops / s.runs / 1e12;
        out[`${m}/failed_rewards`] = s.failed;
      }
      return { ...out, ...judged.result() };
    },
  };
}

export const toaMetrics = (records: readonly ToaEvalRecord[], judging?: { bootstrap: number; seed: number }): Record<string, number> =>
  foldRecords(toaMetricsFold(judging), records);

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
