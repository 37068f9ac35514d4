// TOA's `recipe:` section (composed by configs/schema.ts through the registry).
import { z } from 'zod';
import { positiveInt } from '../../../contracts/config-fields';
import { recipeSection } from '../recipe-section';
import { DEFAULT_MOA_LAYERS, METHODS } from './baselines';
import { DEFAULT_SEARCH } from './search';
import { TOA_PRESETS } from './settings';
import { toaEvaluationSchema } from './evaluation-config';
import { TOA_TASK_KINDS } from './tasks';

/** The roles: K policies (policy_0 …), the student the loop trains on their best responses, the reward. */
export const policyRole = (k: number) => `policy_${k}`;
export const STUDENT_ROLE = 'student';
export const REWARD_ROLE = 'reward';
/** recipe.evaluation's pairwise judge (AlpacaEval / Arena-Hard style), a role only when evaluation is configured. */
export const JUDGE_ROLE = 'judge';
/** recipe.evaluation.kiwi's scorer of translations (a COMET-KIWI service), a role only when that is on. */
export const KIWI_ROLE = 'kiwi';

const modelCompute = z.strictObject({
  /** Parameter count, e.g. 8.0e9. */
  params: z.number().positive(),
  layers: positiveInt.optional(),
  hiddenSize: positiveInt.optional(),
  /** Context for the attention term (the seed: 15000). */
  contextLength: positiveInt.optional(),
});

export const toaRecipeSchema = z.strictObject({
  name: z.literal('toa'),
  /** instruction: {id, instruction} prompts (AlpacaEval, UltraFeedback); translation: {id, instruction, src, ref} (WMT). */
  task: z.enum(TOA_TASK_KINDS),
  // prompts: by key of prompts.ts TOA_PROMPTS.
  ...recipeSection,
  maxTokens: positiveInt.default(2048),
  /** K: the policy roles policy_0 … policy_{K-1}, each its own model (the seed: 4 or 5). */
  policies: z.number().int().min(1).max(16).default(4),
  /** Responses per policy: the budget is N = samples × K calls per prompt for every method (the seed: 160). */
  samples: positiveInt.default(40),
  /** The method whose responses become the student's data. */
  method: z.enum(METHODS).default('toa'),
  /** Methods also run on the evaluation prompts at the same N, to compare best reward against FLOPs. */
  compare: z.array(z.enum(METHODS)).default([]),
  /** random and prs are single-agent: the policy they use. */
  singlePolicy: z.number().int().min(0).default(0),
  /** The seed's settings for one of its experiments (settings.ts): tau, alpha and temperature where not written here.
   *  Default: wmt for a translation task, alpacaeval for an instruction task. */
  preset: z.enum(TOA_PRESETS).optional(),
  search: z
    .strictObject({
      /** Default: the preset's (0.1; wmt 1). */
      tau: z.number().positive().optional(),
      /** Default: the preset's (0.01; wmt 0.05). */
      alpha: z.number().min(0).optional(),
      topK: positiveInt.default(DEFAULT_SEARCH.topK),
      /** Global width of a response layer; default ⌊N/3⌋. */
      width: positiveInt.optional(),
    })
    .prefault({}),
  /** Mixture-of-agents layers per block (the seed's n_iter). */
  moaLayers: positiveInt.default(DEFAULT_MOA_LAYERS),
  /** Every policy's and the student's; default: the preset's per method (0.7; ultrafeedback's MCTS 0.8), 0.7 for the student. */
  temperature: z.number().min(0).max(2).optional(),
  /** An LLM-judge reward role (an endpoint with api: chat): its reply budget and re-asks when unreadable. */
  judge: z.strictObject({ maxTokens: positiveInt.default(256), parseRetries: z.number().int().min(0).default(2) }).prefault({}),
  /** Best responses reported as the mean of the top k rewards (the seed's scaling plot: top-10). */
  topK: positiveInt.default(10),
  data: z
    .strictObject({
      /** DPO rejected = the response at this reward rank (1 = best; the seed: 30 of 160), or the worst if fewer. */
      dpoRank: z.number().int().min(2).default(30),
    })
    .prefault({}),
  /** AlpacaEval 2.0 / Arena-Hard-style judging of the student's and each compared method's best text against
   *  reference outputs (evaluation.ts); needs a `judge` model role. */
  evaluation: toaEvaluationSchema.optional(),
  /** FLOPs per call need each policy's size (required for every policy): role → {params, layers?, hiddenSize?, contextLength?}. */
  flops: z.record(z.string(), modelCompute).default({}),
});

export type ToaRecipeConfig = z.infer<typeof toaRecipeSchema>;

export const policyRoles = (cfg: Pick<ToaRecipeConfig, 'policies'>) => Array.from({ length: cfg.policies }, (_, k) => policyRole(k));
