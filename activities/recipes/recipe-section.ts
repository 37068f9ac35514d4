// The fields every recipe's `recipe:` section has: its task files, the conversations per task, its prompts file and
// how its policy is sampled, with the defaults most recipes share. Each recipe spreads them into its own section
// (<name>/config.ts) and states an override where its seed samples differently; configs/schema.ts composes the
// sections through the registry.
import { z } from 'zod';
import { existingPath, positiveInt, promptsFile } from '../../contracts/config-fields';

/** Nucleus sampling's top_p. */
export const topP = z.number().gt(0).max(1);

/** `fixed` corrects flaws of a seed's released code, `seed` reproduces them (docs/fidelity.md): recipes that have both. */
export const compat = z.enum(['fixed', 'seed']).default('fixed');

export const recipeSection = {
  /** Evaluation split: its conversations are scored every iteration. */
  evalTasks: existingPath('file'),
  /** Training split: its conversations become the training data. Omit for evaluation-only loops. */
  trainTasks: existingPath('file').optional(),
  /** Only the first `limit` tasks of each file. */
  limit: positiveInt.optional(),
  /** Prompt texts by key (the recipe's prompts.ts catalog), e.g. the seed's own. */
  prompts: promptsFile,
  /** Conversations per task on each split. */
  evalSamples: positiveInt.default(1),
  trainSamples: positiveInt.default(1),
  topP: topP.default(1),
  /** The policy's reply length. */
  maxTokens: positiveInt.default(1024),
};
