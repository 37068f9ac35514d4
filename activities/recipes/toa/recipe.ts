// TOA as the loop sees it: its config section, its roles (K policies, frozen or external; the reward; the student
// the loop trains), its runtime, its simulator. Nothing outside this folder names TOA.
import type { RecipeDefinition, RoleDefault } from '../types';
import { judgesPairs } from './evaluation-config';
import { JUDGE_ROLE, KIWI_ROLE, policyRoles, REWARD_ROLE, STUDENT_ROLE, toaRecipeSchema, type ToaRecipeConfig } from './config';
import { loadReferences, missingReference } from './references';
import { TOA_PROMPTS } from './prompts';
import { createToaSimulatedPolicy } from './simulated-policy';
import { isToaTaskKind, loadToaTasks, readToaSplit, TaskFileError, TOA_TASK_KINDS } from './tasks';
import { toaFidelity } from './fidelity';
import type { ToaBuildRecord, ToaEvalRecord } from './records';
import { TOA_METRIC_KINDS } from './metrics';

export const toaRecipe: RecipeDefinition<ToaRecipeConfig, ToaEvalRecord, ToaBuildRecord> = {
  name: 'toa',
  schema: toaRecipeSchema,
  prompts: TOA_PROMPTS,
  // The student is the first (trained) role: its chain is the loop's checkpoint. The policies are the seed's pool of
  // different models (point each at its own checkpoint or endpoint); the reward is a reward model or a judge.
  roles: (cfg) => {
    const roles: Record<string, RoleDefault> = { [STUDENT_ROLE]: 'trained' };
    for (const p of policyRoles(cfg)) roles[p] = 'frozen';
    roles[REWARD_ROLE] = 'frozen';
    if (judgesPairs(cfg.evaluation)) roles[JUDGE_ROLE] = 'frozen';
    if (cfg.evaluation?.kiwi) roles[KIWI_ROLE] = 'frozen';
    return roles;
  },
  fidelity: toaFidelity,
  headlineMetric: 'reward',
  metricKinds: TOA_METRIC_KINDS,
  needs: () => ({ sandboxScoring: false, modelsForData: false, rendering: false }),
  runtime: async (cfg, o) => (await import('./runtime')).toaRuntime(cfg, o.seed, o.format),
  check: (cfg) => {
    if (cfg.singlePolicy >= cfg.policies)
      return { field: 'recipe.singlePolicy', message: `must name one of the ${cfg.policies} policies (0 … ${cfg.policies - 1})` };
    const roles = policyRoles(cfg);
    for (const role of Object.keys(cfg.flops))
      if (!roles.includes(role)) return { field: `recipe.flops.${role}`, message: `is not a policy role (${roles.join(', ')})` };
    // Every method is compared at its FLOPs, so a policy without a size would leave every figure incomplete: say so
    // before any call is paid rather than at the end of the first shard.
    const unsized = roles.find((role) => !Object.hasOwn(cfg.flops, role));
    if (unsized)
      return {
        field: `recipe.flops.${unsized}`,
        message: `is missing: FLOPs per call need each policy's parameter count (e.g. ${unsized}: { params: 8.0e9 })`,
      };
    const ev = cfg.evaluation;
    if (ev?.kiwi && cfg.task !== 'translation')
      return { field: 'recipe.evaluation.kiwi', message: 'scores translations (source, translation): it needs task: translation' };
    if (ev && judgesPairs(ev)) {
      const field = 'recipe.evaluation.references';
      if (!ev.references) return { field, message: 'is required by alpacaEval and arenaHard (set both to false to score with kiwi alone)' };
      // Every evaluation prompt needs its reference before any call is paid.
      try {
        const missing = missingReference(loadReferences(ev.references), readToaSplit(cfg, 'eval', cfg.task));
        if (missing) return { field, message: missing };
      } catch (err) {
        if (err instanceof TaskFileError) return { field: err.file === ev.references ? field : 'recipe.evalTasks', message: err.message };
        throw err;
      }
    }
    return undefined;
  },
  simulator: {
    taskKind: (cfg) => cfg.task,
    policy: (files, p) => {
      const tasks = files.flatMap(({ file, kind }) => {
        if (!isToaTaskKind(kind)) throw new Error(`--tasks ${file}:${kind}: the task kind must be one of ${TOA_TASK_KINDS.join(', ')}`);
        return loadToaTasks(file, kind);
      });
      // One simulator server per checkpoint: whatever name its requests carry, its quality is the checkpoint's skill.
      const byModel = new Map<string, ReturnType<typeof createToaSimulatedPolicy>>();
      const policy: ReturnType<typeof createToaSimulatedPolicy> = (req) => {
        let one = byModel.get(req.model);
        if (!one) byModel.set(req.model, (one = createToaSimulatedPolicy({ tasks, quality: { [req.model]: p.skill } })));
        return one(req);
      };
      return policy as ReturnType<RecipeDefinition['simulator']['policy']>;
    },
  },
};
