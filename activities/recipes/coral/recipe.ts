// CoRal as the loop sees it: its config section, its one extra role (the belief extractor), its runtime, its
// simulator and its `score` command. Nothing outside this folder names CoRal.
import { jsonlRows } from '../task-file';
import { AGENT_ROLE, ScoreInputError, type RecipeDefinition } from '../types';
import { coralRecipeSchema, type CoralRecipeConfig } from './config';
import { CORAL_PROMPTS } from './prompts';
import { checkCoralData } from './data-options';
import { scoreCoralRecord } from './score';
import { createCoralSimulatedPolicy } from './simulated-policy';
import { CORAL_DATASETS, isCoralDataset, loadCoralTasks } from './tasks';
import { coralFidelity } from './fidelity';
import type { CoralConversation } from './conversation';
import { CORAL_METRIC_KINDS } from './metrics';

export const coralRecipe: RecipeDefinition<CoralRecipeConfig, CoralConversation> = {
  name: 'coral',
  schema: coralRecipeSchema,
  prompts: CORAL_PROMPTS,
  // The agents are one trained policy; the extractor reads each turn's belief, frozen at the base model by default.
  roles: () => ({ [AGENT_ROLE]: 'trained', extractor: 'frozen' }),
  fidelity: coralFidelity,
  headlineMetric: 'agreement_correctness',
  metricKinds: CORAL_METRIC_KINDS,
  needs: () => ({ sandboxScoring: false, modelsForData: false, rendering: false }),
  runtime: async (cfg, o) => (await import('./runtime')).coralRuntime(cfg, o.seed, o.format),
  check: (cfg, o) =>
    o.trainerMethod === 'dpo' && cfg.beamSize < 2
      ? { field: 'recipe.beamSize', message: 'must be at least 2 for DPO: pairs come from sibling candidates' }
      : checkCoralData(cfg),
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
    return jsonlRows(o.input).map(({ row, line }) =>
      JSON.stringify(scoreCoralRecord(dataset, row, { file: o.input, line, compat: o.compat })),
    );
  },
};
