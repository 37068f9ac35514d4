// The config's `paper:` section: the published figure(s) a run is meant to reproduce, so `collab-loop report` can
// print the paper's value beside the run's. Only the report reads it; the workflows carry it in the config untouched.
import { z } from 'zod';
import { declaresMetric, type MetricSpec } from './metric-kinds';

const text = z.string().trim().min(1);

export const paperFigureSchema = z.strictObject({
  metric: text.meta({
    description: "A metric key the recipe computes (a row of the report's metrics table), e.g. `accuracy`, `toa/alpaca_lc_win_rate`.",
  }),
  value: z.number().finite().meta({ description: 'The value as the paper prints it.' }),
  percent: z
    .boolean()
    .default(false)
    .meta({ description: "The paper prints this 0–1 metric as a percentage (51.60 for 0.516): the report shows the run's value × 100." }),
  setting: text.meta({
    description: 'What the number is the result of: model, dataset, stage, e.g. "Llama-3.1-8B-Instruct, MMLU-Pro, untrained".',
  }),
  better: z.enum(['higher', 'lower']).default('higher').meta({ description: "Which of the run's values counts as its best." }),
});

export const paperSchema = z.strictObject({
  citation: text.meta({ description: 'Where the figures are printed, short: authors or name, venue or arXiv id, table.' }),
  figures: z.array(paperFigureSchema).min(1).meta({ description: 'The published values, one per metric and setting.' }),
});

export type PaperFigures = z.infer<typeof paperSchema>;

/** The first figure whose metric the recipe does not compute, as the field to fix and why; the config loader turns
 *  it into a ConfigError. */
export function unknownFigureMetric(
  paper: PaperFigures | undefined,
  recipe: { name: string; metricKinds: readonly MetricSpec[] },
): { field: string; message: string } | undefined {
  const i = paper?.figures.findIndex((f) => !declaresMetric(recipe.metricKinds, f.metric)) ?? -1;
  if (i < 0) return undefined;
  const names = recipe.metricKinds.map((s) => (typeof s.match === 'string' ? s.match : s.match.source)).join(', ');
  return {
    field: `paper.figures.${i}.metric`,
    message: `recipe ${recipe.name} computes no metric "${paper!.figures[i].metric}" (its metrics: ${names})`,
  };
}
