// ColBench as the loop sees it: two recipes (backend code, frontend html) with the same roles — the simulated human
// and the critic that ranks SWEET-RL candidates — scored on the sandbox queue. Nothing outside this folder names them.
import { clipCheckpointProblem } from '../../render/clip-checkpoint';
import { AGENT_ROLE, type RecipeDefinition } from '../types';
import { colbenchCodeRecipeSchema, colbenchHtmlRecipeSchema, type ColbenchRecipeConfig } from './config';
import { COLBENCH_CODE_PROMPTS, COLBENCH_HTML_PROMPTS } from './prompts';
import type { ScoredTrajectory, TrainTrajectory } from './runtime';
import type { ColbenchTrajectory } from './episode';
import { createColbenchSimulatedPolicy } from './simulated-policy';
import { loadColbenchTasks, type ColbenchKind } from './tasks';
import { colbenchFidelity } from './fidelity';
import { COLBENCH_METRIC_KINDS } from './metrics';

const learnedCritic = (cfg: ColbenchRecipeConfig) => cfg.data.method === 'sweet-rl' && cfg.data.critic === 'learned';

function colbenchRecipe<C extends ColbenchRecipeConfig>(
  name: C['name'],
  kind: ColbenchKind,
  schema: RecipeDefinition<C>['schema'],
): RecipeDefinition<C, ScoredTrajectory, TrainTrajectory, ColbenchTrajectory> {
  return {
    name,
    schema,
    prompts: kind === 'code' ? COLBENCH_CODE_PROMPTS : COLBENCH_HTML_PROMPTS,
    // The trained agent; the simulated human and (SWEET-RL only) the critic that ranks candidates, frozen by default —
    // in the paper both are larger models behind their own endpoints (models: {human: {kind: external, ...}}).
    // The learned critic (the seed's) is trained every iteration before the policy's data is built; a judge is frozen.
    roles: (cfg) => ({
      [AGENT_ROLE]: 'trained',
      human: 'frozen',
      ...(cfg.data.method === 'sweet-rl' ? { critic: cfg.data.critic === 'learned' ? 'trained' : 'frozen' } : {}),
    }),
    // Backend: all hidden tests pass; frontend: similarity of the final render to the reference.
    fidelity: colbenchFidelity,
    // `data.critic` came with SWEET-RL's learned critic (the default since): before it, the judge ranked.
    fromUnversioned: (s) => {
      const data = (s.data ?? {}) as Record<string, unknown>;
      return 'critic' in data ? s : { ...s, data: { ...data, critic: 'judge' } };
    },
    headlineMetric: kind === 'code' ? 'success_rate' : 'mean_similarity',
    metricKinds: COLBENCH_METRIC_KINDS,
    needs: (cfg) => ({
      sandboxScoring: true,
      modelsForData: cfg.data.method === 'sweet-rl',
      rendering: kind === 'html',
      ...(learnedCritic(cfg) ? { scorers: ['critic'] } : {}),
    }),
    check: (cfg, o) =>
      learnedCritic(cfg) && o.trainerMethod && o.trainerMethod !== 'dpo'
        ? {
            field: 'recipe.data.critic',
            message: `learned trains the critic with DPO beside a DPO-trained policy (the seed's SWEET-RL); with trainer.method ${o.trainerMethod} use critic: judge, or trainer.method: dpo`,
          }
        : undefined,
    runtime: async (cfg, o) => (await import('./runtime')).colbenchRuntime(cfg, o.seed, o.format),
    simulator: {
      taskKind: () => kind,
      policy: (files, p) => {
        const tasks = files.flatMap(({ file, kind: k }) => {
          if (k !== 'code' && k !== 'html') throw new Error(`--tasks ${file}:${k}: the ColBench kind must be code or html`);
          return loadColbenchTasks(file, k);
        });
        return createColbenchSimulatedPolicy({ tasks, skill: p.skill }) as ReturnType<RecipeDefinition['simulator']['policy']>;
      },
    },
    ...(kind === 'code'
      ? {
          // Each record's answer runs against its task's hidden tests in the Python sandbox.
          score: async (o: { input: string; tasks?: string; compat: 'fixed' | 'seed' }) => {
            const { scoreColbenchCodeFile } = await import('./score');
            const { runCodeTests } = await import('../../sandbox/code-tests');
            const tasks = o.tasks ? loadColbenchTasks(o.tasks, 'code') : undefined;
            const results = await scoreColbenchCodeFile(o.input, runCodeTests, { tasks, compat: o.compat });
            return results.map((r) => JSON.stringify(r));
          },
        }
      : {
          // The CLIP checkpoint (recipe.similarity.model) is a local directory, checked here so that a wrong one is
          // a config error and not a failure on the first page scored.
          resolvePaths: (cfg: C, abs: (p: string) => string) => {
            if ('similarity' in cfg && cfg.similarity.kind === 'clip') cfg.similarity.model = abs(cfg.similarity.model);
          },
          check: (cfg: C) => {
            const problem = 'similarity' in cfg && cfg.similarity.kind === 'clip' ? clipCheckpointProblem(cfg.similarity.model) : undefined;
            return problem ? { field: 'recipe.similarity.model', message: problem } : undefined;
          },
        }),
  };
}

export const colbenchCodeRecipe = colbenchRecipe('colbench-code', 'code', colbenchCodeRecipeSchema);
export const colbenchHtmlRecipe = colbenchRecipe('colbench-html', 'html', colbenchHtmlRecipeSchema);
