// CollabLLM as the loop sees it: its config section, its roles (the trained assistant; the user simulator, the judge
// and the extractor, frozen or external), its runtime, its simulator. Nothing outside this folder names CollabLLM.
import type { RecipeDefinition } from '../types';
import { collabllmRecipeSchema, weightsOf, type CollabllmRecipeConfig } from './config';
import { COLLABLLM_PROMPTS } from './prompts';
import { createCollabSimulatedPolicy } from './simulated-policy';
import { isCollabTaskKind, loadCollabTasks, COLLAB_TASK_KINDS } from './tasks';
import { collabllmFidelity } from './fidelity';
import { collabVerlRollout } from './verl-rollout';
import type { CollabBuildRecord, CollabEvalRecord } from './conversation';
import { COLLAB_METRIC_KINDS } from './iteration-metrics';

/** The metrics a task kind can be scored on: BLEU needs a reference document, pass_rate unit tests. */
const ONLY_FOR: Record<string, string> = { bleu: 'document', pass_rate: 'code' };

export const collabllmRecipe: RecipeDefinition<CollabllmRecipeConfig, CollabEvalRecord, CollabBuildRecord> = {
  name: 'collabllm',
  schema: collabllmRecipeSchema,
  prompts: COLLABLLM_PROMPTS,
  // The seed's user simulator and judges are larger API models (GPT-4o, Claude): point them at an endpoint with
  // models: {user: {kind: external, …}}; by default they are the base model, frozen.
  roles: () => ({ assistant: 'trained', user: 'frozen', judge: 'frozen', extractor: 'frozen' }),
  fidelity: collabllmFidelity,
  headlineMetric: 'task_success',
  metricKinds: COLLAB_METRIC_KINDS,
  needs: (cfg) => ({ sandboxScoring: false, modelsForData: false, rendering: false, unitTests: cfg.task === 'code' }),
  runtime: async (cfg, o) => (await import('./runtime')).collabRuntime(cfg, o.seed, o.format),
  check: (cfg) => {
    for (const [metric, kind] of Object.entries(ONLY_FOR))
      if (metric in weightsOf(cfg) && cfg.task !== kind)
        return { field: `recipe.weights.${metric}`, message: `needs task: ${kind} (this recipe's task is ${cfg.task})` };
    return undefined;
  },
  // Online RL as verl's recipe/collabllm: GRPO on single assistant turns of the multiturn rows, rewarded by the MR of
  // futures verl plays with our user simulator (reward-service.ts).
  onlineRl: {
    rollout: collabVerlRollout,
    rewardService: async (cfg, o) => {
      const [{ collabRewardHandlers }, { collabSettings, taskTestRunner }] = await Promise.all([
        import('./reward-service'),
        import('./runtime'),
      ]);
      return collabRewardHandlers({
        kind: cfg.task,
        chats: { user: o.chats.user, judge: o.chats.judge, extractor: o.chats.extractor },
        settings: collabSettings(cfg, o.seed),
        runTests: taskTestRunner(cfg)(o.services),
      });
    },
  },
  simulator: {
    taskKind: (cfg) => cfg.task,
    policy: (files, p) => {
      const tasks = files.flatMap(({ file, kind }) => {
        if (!isCollabTaskKind(kind))
          throw new Error(`--tasks ${file}:${kind}: the task kind must be one of ${COLLAB_TASK_KINDS.join(', ')}`);
        return loadCollabTasks(file, kind);
      });
      return createCollabSimulatedPolicy({ tasks, skill: p.skill }) as ReturnType<RecipeDefinition['simulator']['policy']>;
    },
  },
};
