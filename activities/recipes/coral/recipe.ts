// CoRal as the loop sees it: its config section, its one extra role (the belief extractor), its runtime, its
// simulator and its `score` command. Nothing outside this folder names CoRal.
import { readFileSync } from 'node:fs';
import { ScoreInputError, type RecipeDefinition } from '../types';
import { coralRecipeSchema, type CoralRecipeConfig } from './config';
import { coralRuntime } from './runtime';
import { scoreCoralRecord } from './score';
import { createCoralSimulatedPolicy } from './simulated-policy';
import { CORAL_DATASETS, isCoralDataset, loadCoralTasks } from './tasks';

export const coralRecipe: RecipeDefinition<CoralRecipeConfig> = {
  name: 'coral',
  schema: coralRecipeSchema,
  // The extractor reads each turn's belief; by default the served model extracts its own.
  roles: (cfg) => ({ extractor: cfg.extractor }),
  headlineMetric: 'agreement_correctness',
  needs: () => ({ sandboxScoring: false, modelsForData: false, rendering: false }),
  runtime: (cfg, o) => coralRuntime(cfg, o.seed, o.format),
  check: (cfg, o) =>
    o.trainerMethod === 'dpo' && cfg.beamSize < 2
      ? { field: 'recipe.beamSize', message: 'must be at least 2 for DPO: pairs come from sibling candidates' }
      : undefined,
  simulator: {
    taskKind: (cfg) => cfg.dataset,
    policy: (files, p) => {
      const tasks = files.flatMap(({ file, kind }) => {
        if (!isCoralDataset(kind)) throw new Error(`--tasks ${file}:${kind}: the dataset must be one of ${CORAL_DATASETS.join(', ')}`);
        return loadCoralTasks(file, kind);
      });
      return createCoralSimulatedPolicy({ tasks, skill: p.skill, agreeability: p.agreeability });
    },
  },
  // Each record ({"response", "answer"}) → the extracted answer and whether it is correct.
  score: async (o) => {
    if (!o.dataset || !isCoralDataset(o.dataset))
      throw new ScoreInputError(`--dataset: must be one of ${CORAL_DATASETS.join(', ')} for --recipe coral`);
    const dataset = o.dataset;
    let text: string;
    try {
      text = readFileSync(o.input, 'utf8');
    } catch (err) {
      throw new ScoreInputError(`--input: cannot read ${o.input} (${(err as NodeJS.ErrnoException).code})`);
    }
    const out: string[] = [];
    text.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch {
        throw new ScoreInputError(`${o.input} line ${i + 1}: not valid JSON`);
      }
      out.push(JSON.stringify(scoreCoralRecord(dataset, row, { file: o.input, line: i + 1, compat: o.compat })));
    });
    return out;
  },
};
