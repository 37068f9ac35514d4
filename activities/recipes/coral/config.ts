// CoRal's `recipe:` section (configs/schema.ts composes it with the other recipes' through the registry).
import { z } from 'zod';
import { movedToModels, positiveInt } from '../../../contracts/config-fields';
import { compat, recipeSection, topP } from '../recipe-section';
import { PAIR_CHOICES } from './pair-choice';
import { SFT_SELECTIONS } from './sft';
import { CORAL_DATASETS } from './tasks';

export const coralRecipeSchema = z
  .strictObject({
    name: z.literal('coral'),
    dataset: z.enum(CORAL_DATASETS).meta({
      description:
        'The benchmark the tasks come from: MMLU-Pro and GPQA (letters), MATH (boxed answers), ExploreToM and Hi-ToM (short answers).',
    }),
    // Evaluation conversations at temperature `evalTemperature`; training ones by tree sampling; prompts: CORAL_PROMPTS.
    ...recipeSection,
    trainSamples: positiveInt.default(5).meta({ description: 'Conversations per training task (each tree-sampled).' }),
    topP: topP
      .optional()
      .meta({ description: "Nucleus sampling's top_p of the policy; default by `compat` (decoding.ts): fixed 0.9, seed 1." }),
    mode: z
      .enum(['coral', 'cot'])
      .default('coral')
      .meta({ description: 'coral: two agents converse until they agree; cot: the chain-of-thought baseline (one agent, one turn).' }),
    compat,
    maxTurns: positiveInt.default(20).meta({ description: 'Turns after which a conversation ends without agreement.' }),
    evalTemperature: z
      .number()
      .min(0)
      .max(2)
      .optional()
      .meta({ description: 'Sampling temperature of evaluation conversations; default by `compat` (decoding.ts): fixed 0, seed 0.2.' }),
    trainTemperature: z
      .number()
      .min(0)
      .max(2)
      .optional()
      .meta({ description: 'Sampling temperature of the training trees; default by `compat` (decoding.ts): fixed 0.8, seed 0.2.' }),
    beamSize: positiveInt.default(5).meta({ description: 'Tree sampling width d (candidates per turn); DPO pairs need d > 1.' }),
    // The belief extractor is the model role `extractor` (models section).
    extractor: movedToModels('extractor'),
    extractorMaxTokens: positiveInt.default(32).meta({ description: "The belief extractor's reply length (it reads each turn's answer)." }),
    data: z
      .strictObject({
        maxPerTask: positiveInt
          .default(10)
          .meta({ description: 'SFT: turns per task (`correct_agreement`) or conversations per task (`all_turns`); DPO: pairs per task.' }),
        maxPairsPerTurn: positiveInt.default(1).meta({ description: 'DPO pairs taken from one tree-sampled turn.' }),
        sftSelection: z
          .enum(SFT_SELECTIONS)
          .optional()
          .meta({ description: 'Default by `compat` (data-options.ts): fixed → correct_agreement, seed → all_turns (sft.ts).' }),
        pairChoice: z
          .enum(PAIR_CHOICES)
          .optional()
          .meta({ description: 'Default by `compat`: fixed → shuffled, seed → reward_gap (pair-choice.ts).' }),
        discourageAgreement: z
          .boolean()
          .default(false)
          .meta({ description: "The seed's `discourage_agreement`: rank pairs rejecting a wrong agreement first (reward_gap only)." }),
        discourageLength: z
          .boolean()
          .default(false)
          .meta({ description: "The seed's `discourage_length`: rank shorter-chosen / longer-rejected pairs first (reward_gap only)." }),
      })
      .prefault({})
      .meta({ description: 'How the SFT examples and DPO pairs are chosen; defaults follow `compat`, an explicit field wins.' }),
  })
  .meta({
    description:
      'CoRal (Collaborative Reasoner): two agents reason together until they agree; trained on their agreed conversations or tree-sampled turn pairs.',
  });

export type CoralRecipeConfig = z.infer<typeof coralRecipeSchema>;
