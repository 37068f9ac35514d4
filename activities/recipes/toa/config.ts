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
  params: z.number().positive().meta({ description: 'Parameter count, e.g. 8.0e9.' }),
  layers: positiveInt.optional().meta({ description: 'Transformer layers, for the attention term.' }),
  hiddenSize: positiveInt.optional().meta({ description: 'Hidden size, for the attention term.' }),
  contextLength: positiveInt.optional().meta({ description: 'Context for the attention term (the seed: 15000).' }),
});

export const toaRecipeSchema = z
  .strictObject({
    name: z.literal('toa'),
    task: z.enum(TOA_TASK_KINDS).meta({
      description: 'instruction: {id, instruction} prompts (AlpacaEval, UltraFeedback); translation: {id, instruction, src, ref} (WMT).',
    }),
    // prompts: by key of prompts.ts TOA_PROMPTS.
    ...recipeSection,
    maxTokens: positiveInt.default(2048).meta({ description: "A policy's and the student's reply length." }),
    policies: z
      .number()
      .int()
      .min(1)
      .max(16)
      .default(4)
      .meta({ description: 'K: the policy roles policy_0 … policy_{K-1}, each its own model (the seed: 4 or 5).' }),
    samples: positiveInt
      .default(40)
      .meta({ description: 'Responses per policy: the budget is N = samples × K calls per prompt for every method (the seed: N = 160).' }),
    method: z.enum(METHODS).default('toa').meta({ description: "The method whose responses become the student's data." }),
    compare: z
      .array(z.enum(METHODS))
      .default([])
      .meta({ description: 'Methods also run on the evaluation prompts at the same N, to compare best reward against FLOPs.' }),
    singlePolicy: z.number().int().min(0).default(0).meta({ description: 'random and prs are single-agent: the policy they use.' }),
    preset: z.enum(TOA_PRESETS).optional().meta({
      description:
        "The seed's settings for one of its experiments (settings.ts): tau, alpha and temperature where not written here. Default: wmt for a translation task, alpacaeval for an instruction task.",
    }),
    search: z
      .strictObject({
        tau: z
          .number()
          .positive()
          .optional()
          .meta({ description: "Reward temperature: v = sigmoid(raw / tau). Default: the preset's (0.1; wmt 1)." }),
        alpha: z.number().min(0).optional().meta({ description: "UCB exploration weight. Default: the preset's (0.01; wmt 0.05)." }),
        topK: positiveInt
          .default(DEFAULT_SEARCH.topK)
          .meta({ description: "topk_child: a model node's response children considered by UCB (1: greedy)." }),
        width: positiveInt.optional().meta({ description: 'Global width of a response layer; default ⌊N/3⌋.' }),
      })
      .prefault({})
      .meta({ description: 'The tree search (search.ts): reward-guided Monte Carlo tree search over the K policies.' }),
    moaLayers: positiveInt.default(DEFAULT_MOA_LAYERS).meta({ description: "Mixture-of-agents layers per block (the seed's n_iter)." }),
    temperature: z.number().min(0).max(2).optional().meta({
      description:
        "Every policy's and the student's; default: the preset's per method (0.7; ultrafeedback's MCTS 0.8), 0.7 for the student.",
    }),
    judge: z
      .strictObject({
        maxTokens: positiveInt.default(256).meta({ description: "The judge's reply length." }),
        parseRetries: z.number().int().min(0).default(2).meta({ description: 'Re-asks when its reply cannot be read.' }),
      })
      .prefault({})
      .meta({ description: 'An LLM-judge reward role (an endpoint with api: chat): how it is asked.' }),
    topK: positiveInt
      .default(10)
      .meta({ description: "Best responses reported as the mean of the top k rewards (the seed's scaling plot: top-10)." }),
    data: z
      .strictObject({
        dpoRank: z
          .number()
          .int()
          .min(2)
          .default(30)
          .meta({ description: 'DPO rejected = the response at this reward rank (1 = best; the seed: 30 of 160), or the worst if fewer.' }),
      })
      .prefault({})
      .meta({ description: "How the student's data is built from the searches' responses." }),
    evaluation: toaEvaluationSchema.optional().meta({
      description:
        "AlpacaEval 2.0 / Arena-Hard-style judging of the student's and each compared method's best text against reference outputs (evaluation.ts); needs a `judge` model role.",
    }),
    flops: z.record(z.string(), modelCompute).default({}).meta({
      description: "Each policy's size by role (required for every policy): FLOPs per call need it.",
    }),
  })
  .meta({
    description:
      'TOA (Tree-search Orchestrated Agents): best-of-N data from several different models, sampled by a reward-guided Monte Carlo tree search; a student is trained on the best responses.',
  });

export type ToaRecipeConfig = z.infer<typeof toaRecipeSchema>;

export const policyRoles = (cfg: Pick<ToaRecipeConfig, 'policies'>) => Array.from({ length: cfg.policies }, (_, k) => policyRole(k));
