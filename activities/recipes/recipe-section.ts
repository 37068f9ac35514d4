// The fields every recipe's `recipe:` section has: its task files, the conversations per task, its prompts file and
// how its policy is sampled, with the defaults most recipes share. Each recipe spreads them into its own section
// (<name>/config.ts) and states an override where its seed samples differently; configs/schema.ts composes the
// sections through the registry.
import { z } from 'zod';
import { existingPath, positiveInt, promptsFile } from '../../contracts/config-fields';

export const topP = z.number().gt(0).max(1).meta({ description: "Nucleus sampling's top_p of the policy." });

/** The switch of the recipes whose seed's released code has flaws the project corrects. */
export const compat = z
  .enum(['fixed', 'seed'])
  .default('fixed')
  .meta({ description: "`fixed` corrects flaws of the seed's released code, `seed` reproduces them (docs/fidelity.md)." });

export const recipeSection = {
  evalTasks: existingPath('file').meta({ description: 'Evaluation split: its conversations are scored every iteration.' }),
  trainTasks: existingPath('file')
    .optional()
    .meta({ description: 'Training split: its conversations become the training data. Omit for evaluation-only loops.' }),
  limit: positiveInt.optional().meta({ description: 'Only the first `limit` tasks of each file.' }),
  prompts: promptsFile,
  evalSamples: positiveInt.default(1).meta({ description: 'Conversations per evaluation task.' }),
  trainSamples: positiveInt.default(1).meta({ description: 'Conversations per training task.' }),
  topP: topP.default(1),
  maxTokens: positiveInt.default(1024).meta({ description: "The policy's reply length." }),
};
