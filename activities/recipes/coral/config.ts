// CoRal's `recipe:` section (configs/schema.ts composes it with the other recipes' through the registry).
import { z } from 'zod';
import { movedToModels, positiveInt } from '../../../contracts/config-fields';
import { compat, recipeSection, topP } from '../recipe-section';
import { PAIR_CHOICES } from './pair-choice';
import { SFT_SELECTIONS } from './sft';
import { CORAL_DATASETS } from './tasks';

export const coralRecipeSchema = z.strictObject({
  name: z.literal('coral'),
  dataset: z.enum(CORAL_DATASETS),
  // Evaluation conversations at temperature `evalTemperature`; training ones by tree sampling; prompts: CORAL_PROMPTS.
  ...recipeSection,
  trainSamples: positiveInt.default(5),
  /** Default by `compat` (decoding.ts): fixed 0.9, seed 1. */
  topP: topP.optional(),
  mode: z.enum(['coral', 'cot']).default('coral'),
  compat,
  maxTurns: positiveInt.default(20),
  /** Default by `compat` (decoding.ts): fixed 0, seed 0.2. */
  evalTemperature: z.number().min(0).max(2).optional(),
  /** Default by `compat` (decoding.ts): fixed 0.8, seed 0.2. */
  trainTemperature: z.number().min(0).max(2).optional(),
  /** Tree sampling width d (candidates per turn); DPO pairs need d > 1. */
  beamSize: positiveInt.default(5),
  /** The belief extractor is the model role `extractor` (models section). */
  extractor: movedToModels('extractor'),
  extractorMaxTokens: positiveInt.default(32),
  data: z
    .strictObject({
      /** SFT: turns per task (`correct_agreement`) or conversations per task (`all_turns`); DPO: pairs per task. */
      maxPerTask: positiveInt.default(10),
      maxPairsPerTurn: positiveInt.default(1),
      /** Default by `compat` (data-options.ts): fixed → correct_agreement, seed → all_turns (sft.ts). */
      sftSelection: z.enum(SFT_SELECTIONS).optional(),
      /** Default by `compat`: fixed → shuffled, seed → reward_gap (pair-choice.ts). */
      pairChoice: z.enum(PAIR_CHOICES).optional(),
      /** The seed's `discourage_agreement`: rank pairs rejecting a wrong agreement first (reward_gap only). */
      discourageAgreement: z.boolean().default(false),
      /** The seed's `discourage_length`: rank shorter-chosen / longer-rejected pairs first (reward_gap only). */
      discourageLength: z.boolean().default(false),
    })
    .prefault({}),
});

export type CoralRecipeConfig = z.infer<typeof coralRecipeSchema>;
