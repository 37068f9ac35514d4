// What tells ColBench's two kinds apart at run time (the rest of runtime.ts is the same for both): the task file's
// rows, how an episode is scored on the sandbox queue (hidden tests in the Python sandbox; the final page rendered
// and compared), the one number a score ranks trajectories by, and the metrics over scored episodes.
import type { ScoringServices, Split } from '../types';
import type { ColbenchCodeRecipeConfig, ColbenchHtmlRecipeConfig } from './config';
import type { ColbenchTrajectory } from './episode';
import { colbenchCodeMetricsFold, colbenchHtmlMetricsFold } from './metrics';
import type { MetricsFold } from '../metrics-fold';
import { scoreCodeTrajectory, scoreHtmlTrajectory, type CodeScore, type HtmlScore } from './scoring';
import { loadColbenchTasks, type ColbenchCodeTask, type ColbenchHtmlTask, type ColbenchTask } from './tasks';
import { splitTaskReader } from '../task-file';

export interface ColbenchKindRuntime<T extends ColbenchTask, S extends CodeScore | HtmlScore> {
  kind: T['kind'];
  tasks(split: Split): T[];
  /** Episodes scored at once: one lane per sandbox slot (each slot its own uid, so process limits never collide). */
  lanes: number;
  score(r: ColbenchTrajectory, task: T, services: ScoringServices, slot: number): Promise<S>;
  /** The final score trajectory pairs and rejection fine-tuning rank by: code, the test fraction; html, similarity. */
  value(s: S): number;
  metricsFold(): MetricsFold<ColbenchTrajectory & { score: S }>;
}

const readCode = splitTaskReader((file, kind: 'code') => loadColbenchTasks(file, kind));
const readHtml = splitTaskReader((file, kind: 'html') => loadColbenchTasks(file, kind));

/** Best-of-k over the evaluation samples, when there are several. */
const bestOfK = (cfg: { evalSamples: number }) => ({ bestOfK: cfg.evalSamples > 1 ? cfg.evalSamples : undefined });

export const codeKind = (cfg: ColbenchCodeRecipeConfig): ColbenchKindRuntime<ColbenchCodeTask, CodeScore> => ({
  kind: 'code',
  tasks: (split) => readCode(cfg, split, 'code'),
  lanes: cfg.sandbox.slots,
  score: (r, task, services, slot) =>
    scoreCodeTrajectory(r, task, services.runCodeTests, {
      functionTimeoutSeconds: cfg.sandbox.functionTimeoutSeconds,
      slot,
      compat: cfg.compat,
    }),
  value: (s) => s.fraction,
  metricsFold: () => colbenchCodeMetricsFold(bestOfK(cfg)),
});

export const htmlKind = (cfg: ColbenchHtmlRecipeConfig): ColbenchKindRuntime<ColbenchHtmlTask, HtmlScore> => ({
  kind: 'html',
  tasks: (split) => readHtml(cfg, split, 'html'),
  lanes: 2,
  score: (r, task, services) =>
    scoreHtmlTrajectory(r, task, {
      render: services.render,
      similarity: services.similarity(cfg.similarity),
      loadImage: services.loadImage,
      saveImage: services.saveImage,
      compat: cfg.compat,
    }),
  value: (s) => s.similarity,
  metricsFold: () => colbenchHtmlMetricsFold(bestOfK(cfg)),
});
