// ColBench's two `recipe:` sections, colbench-code and colbench-html (composed by configs/schema.ts through the
// registry).
import { z } from 'zod';
import { movedToModels, positiveInt, similarityMeasureSchema } from '../../../contracts/config-fields';
import { compat, recipeSection } from '../recipe-section';

/** ColBench (SWEET-RL's benchmark): an agent, a simulated human who sees the hidden reference, at most 10 turns. */
const colbenchCommon = {
  // prompts: by key of prompts.ts COLBENCH_CODE_PROMPTS / COLBENCH_HTML_PROMPTS.
  ...recipeSection,
  trainSamples: positiveInt.default(3),
  compat,
  maxTurns: positiveInt.default(10),
  /** Default by `compat` (decoding.ts): fixed → 0, seed → 1 (the seed's evaluation runs). */
  evalTemperature: z.number().min(0).max(2).optional(),
  trainTemperature: z.number().min(0).max(2).default(1),
  /** The simulated human (an LLM) is the model role `human` (models section); here only how it is sampled. */
  human: z
    .strictObject({
      endpoint: movedToModels('human'),
      temperature: z.number().min(0).max(2).default(0),
      /** Default by `compat` (decoding.ts): fixed → 512, seed → 4096. */
      maxTokens: positiveInt.optional(),
    })
    .prefault({}),
  data: z
    .strictObject({
      /** sweet-rl: step-level pairs ranked by a critic that sees the reference; mt-dpo / rft: the paper's baselines. */
      method: z.enum(['sweet-rl', 'mt-dpo', 'rft']).default('sweet-rl'),
      /** Share of the training trajectories whose turns become SWEET-RL states (the seed: 0.1). */
      fraction: z.number().gt(0).max(1).default(0.1),
      candidates: z.number().int().min(2).default(16),
      candidateTemperature: z.number().min(0).max(2).default(1),
      pairsPerTurn: positiveInt.default(4),
      /**
       * How SWEET-RL ranks candidate turns (critic.ts). learned — the seed's: the `critic` role (trained by default,
       * its own checkpoint chain) is DPO-trained each iteration on trajectory pairs with the reference in its prompt,
       * then ranks by its mean log-prob of a candidate minus the policy's (sweet_rl README, SWEET-RL section;
       * scripts/rank_best_of_n.py). judge — the `critic` role (frozen by default) scores candidates 0–10 in a prompt.
       */
      critic: z
        .enum(['learned', 'judge'], {
          error:
            "must be learned (the seed: a DPO-trained critic) or judge (an LLM scoring candidates 0–10); the critic model itself is the models section's role `critic`",
        })
        .default('learned'),
      /** Judge critic only: the judge's reply length. */
      criticMaxTokens: positiveInt.default(256),
    })
    .prefault({}),
};

export const colbenchCodeRecipeSchema = z.strictObject({
  name: z.literal('colbench-code'),
  ...colbenchCommon,
  sandbox: z
    .strictObject({
      functionTimeoutSeconds: z.number().positive().default(1),
      /** Sandboxes at once per scoring activity (each its own uid). */
      slots: positiveInt.default(2),
    })
    .prefault({}),
});

export const colbenchHtmlRecipeSchema = z.strictObject({
  name: z.literal('colbench-html'),
  ...colbenchCommon,
  similarity: similarityMeasureSchema.default({ kind: 'weight-free' }),
});

export type ColbenchCodeRecipeConfig = z.infer<typeof colbenchCodeRecipeSchema>;
export type ColbenchHtmlRecipeConfig = z.infer<typeof colbenchHtmlRecipeSchema>;
export type ColbenchRecipeConfig = ColbenchCodeRecipeConfig | ColbenchHtmlRecipeConfig;
