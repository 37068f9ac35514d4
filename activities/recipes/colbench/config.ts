// ColBench's two `recipe:` sections, colbench-code and colbench-html (composed by configs/schema.ts through the
// registry).
import { z } from 'zod';
import { movedToModels, positiveInt, similarityMeasureSchema } from '../../../contracts/config-fields';
import { compat, recipeSection } from '../recipe-section';

// The fields both ColBench sections share (each section's .meta says what the benchmark is).
const colbenchCommon = {
  // prompts: by key of prompts.ts COLBENCH_CODE_PROMPTS / COLBENCH_HTML_PROMPTS.
  ...recipeSection,
  trainSamples: positiveInt.default(3).meta({ description: 'Conversations per training task.' }),
  compat,
  maxTurns: positiveInt.default(10).meta({ description: "Agent turns after which a dialogue ends (ColBench's limit)." }),
  evalTemperature: z.number().min(0).max(2).optional().meta({
    description:
      "The agent's sampling temperature in evaluation; default by `compat` (decoding.ts): fixed → 0, seed → 1 (the seed's evaluation runs).",
  }),
  trainTemperature: z.number().min(0).max(2).default(1).meta({ description: "The agent's sampling temperature in training dialogues." }),
  human: z
    .strictObject({
      endpoint: movedToModels('human'),
      temperature: z.number().min(0).max(2).default(0).meta({ description: "The simulated human's sampling temperature." }),
      maxTokens: positiveInt
        .optional()
        .meta({ description: "The simulated human's reply length; default by `compat` (decoding.ts): fixed → 512, seed → 4096." }),
    })
    .prefault({})
    .meta({ description: 'The simulated human (an LLM) is the model role `human` (models section); here only how it is sampled.' }),
  data: z
    .strictObject({
      method: z.enum(['sweet-rl', 'mt-dpo', 'rft']).default('sweet-rl').meta({
        description: "sweet-rl: step-level pairs ranked by a critic that sees the reference; mt-dpo / rft: the paper's baselines.",
      }),
      fraction: z
        .number()
        .gt(0)
        .max(1)
        .default(0.1)
        .meta({ description: "Share of the training trajectories whose turns become SWEET-RL states (the default is the seed's)." }),
      candidates: z.number().int().min(2).default(16).meta({ description: 'Candidate agent turns sampled per SWEET-RL state.' }),
      candidateTemperature: z.number().min(0).max(2).default(1).meta({ description: 'Sampling temperature of those candidates.' }),
      pairsPerTurn: positiveInt.default(4).meta({ description: 'Preference pairs kept per state (best-ranked against worst-ranked).' }),
      critic: z
        .enum(['learned', 'judge'], {
          error:
            "must be learned (the seed: a DPO-trained critic) or judge (an LLM scoring candidates 0–10); the critic model itself is the models section's role `critic`",
        })
        .default('learned')
        .meta({
          description:
            "How SWEET-RL ranks candidate turns (critic.ts). learned — the seed's: the `critic` role (trained by default, its own checkpoint chain) is DPO-trained each iteration on trajectory pairs with the reference in its prompt, then ranks by its mean log-prob of a candidate minus the policy's (sweet_rl README, SWEET-RL section; scripts/rank_best_of_n.py). judge — the `critic` role (frozen by default) scores candidates 0–10 in a prompt.",
        }),
      criticMaxTokens: positiveInt.default(256).meta({ description: "Judge critic only: the judge's reply length." }),
    })
    .prefault({})
    .meta({ description: 'How the training data is built from the dialogues.' }),
};

export const colbenchCodeRecipeSchema = z
  .strictObject({
    name: z.literal('colbench-code'),
    ...colbenchCommon,
    sandbox: z
      .strictObject({
        functionTimeoutSeconds: z
          .number()
          .positive()
          .default(1)
          .meta({ description: "How long the agent's function may run on one test case." }),
        slots: positiveInt.default(2).meta({ description: 'Sandboxes at once per scoring activity (each its own uid).' }),
      })
      .prefault({})
      .meta({ description: "How the agent's function is run against the hidden tests (activities/sandbox/)." }),
  })
  .meta({
    description:
      "ColBench backend programming (SWEET-RL's benchmark): an agent writes a Python function with a simulated human who sees the hidden reference, at most `maxTurns` turns; scored by tests against the hidden reference.",
  });

export const colbenchHtmlRecipeSchema = z
  .strictObject({
    name: z.literal('colbench-html'),
    ...colbenchCommon,
    similarity: similarityMeasureSchema
      .default({ kind: 'weight-free' })
      .meta({ description: "How the final page's screenshot is compared with the reference's." }),
  })
  .meta({
    description:
      'ColBench frontend design: an agent writes a web page with a simulated human who sees the reference page; scored by screenshot similarity.',
  });

export type ColbenchCodeRecipeConfig = z.infer<typeof colbenchCodeRecipeSchema>;
export type ColbenchHtmlRecipeConfig = z.infer<typeof colbenchHtmlRecipeSchema>;
export type ColbenchRecipeConfig = ColbenchCodeRecipeConfig | ColbenchHtmlRecipeConfig;
