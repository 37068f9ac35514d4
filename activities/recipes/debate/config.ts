// Debate's `recipe:` section (composed by configs/schema.ts through the registry).
import { z } from 'zod';
import { envVarName, movedToModels, positiveInt } from '../../../contracts/config-fields';
import { compat, recipeSection, topP } from '../recipe-section';
import { DEBATE_DATASETS } from './tasks';

export const debateRecipeSchema = z.strictObject({
  name: z.literal('debate'),
  /**
   * math: MATH (\boxed{} answers); gsm8k: grade-school word problems (numbers); arithmetic: a+b*c+d-e*f (numbers,
   * arithmetic.ts); mmlu: multiple choice (letters).
   */
  dataset: z.enum(DEBATE_DATASETS),
  // prompts: by key of prompts.ts DEBATE_PROMPTS.
  ...recipeSection,
  topP: topP.default(0.9),
  maxTokens: positiveInt.default(2048),
  /**
   * debate: N agents × R rounds (the method); single: one agent, one answer (the paper's Base); majority: the vote
   * of N independent answers (the paper's Majority). Untrained debate is `debate` at iteration 0. The paper's
   * single-model finetuning baselines: majority_ft — one model (`generator_0`) answers N times, the vote is the
   * answer, and it trains on its answers that agree with the vote (no gold); star — the same N answers, trained on
   * those that match the gold answer (STaR's filter, without its rationalisation step).
   */
  mode: z.enum(['debate', 'single', 'majority', 'majority_ft', 'star']).default('debate'),
  agents: positiveInt.default(3),
  rounds: positiveInt.default(2),
  /** Later rounds see a summary of the other agents' answers (a summariser call) instead of the answers themselves. */
  summarize: z.boolean().default(false),
  /**
   * What a later round shows of the other agents' previous answers (listed or summarised): multiagent-ft
   * original_gen.py shuffles them and keeps 5; ft_gen.py keeps all in agent order (`shuffle: false`).
   */
  others: z.strictObject({ shuffle: z.boolean().default(true), max: positiveInt.default(5) }).prefault({}),
  /** The summariser is the model role `summarizer` (models section; frozen at the base model, as in the seed). */
  summarizer: movedToModels('summarizer'),
  /**
   * fixed: a problem no agent answered counts as wrong; seed: it is left out of the accuracy's denominator, as the
   * seed's eval_math.py does.
   */
  compat,
  temperature: z.number().min(0).max(2).default(1),
  /**
   * The paper's diversity measure (diversity.ts): `embeddings`, an OpenAI-compatible endpoint whose `/v1/embeddings`
   * embeds every agent's reply, gives `embedding_dissimilarity` (mean pairwise 1 − cosine between agents). Absent:
   * not computed. The dry run's simulator serves a deterministic stand-in (not a model).
   */
  diversity: z
    .strictObject({
      embeddings: z
        .strictObject({
          baseUrl: z.url({ message: 'must be a URL such as http://127.0.0.1:8000/v1' }),
          model: z.string().min(1),
          apiKeyEnv: envVarName.optional(),
        })
        .optional(),
    })
    .prefault({}),
  data: z
    .strictObject({
      /** Critic examples that kept their round-0 answer ("maintained") per example that changed it ("corrected"): the
       *  seed adds one maintained example per corrected one with probability 0.5, about 1 : 2. */
      maintainedPerCorrected: z.number().min(0).default(0.5),
    })
    .prefault({}),
});

export type DebateRecipeConfig = z.infer<typeof debateRecipeSchema>;
