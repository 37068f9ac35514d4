// What the servers of a config's checkpoints need from its recipe (serving/checkpoint-servers.ts): how the dry-run
// simulator names the recipe's task files, and the probe's prompts, made only when a served model is probed.
import type { LoopConfig } from '../../contracts/config';
import { recipeOf, recipeRuntime } from '../recipes/runtime';
import type { ServedRecipe } from '../serving/checkpoint-servers';

export const servedRecipe = (config: LoopConfig): ServedRecipe => ({
  simulatorTaskKind: recipeOf(config).simulator.taskKind(config.recipe),
  probePrompts: async (n) => (await recipeRuntime(config)).probePrompts(n),
});
