// The example configs a new user copies (configs/<recipe>.dry-run.yaml and configs/<recipe>.external.yaml), for the
// tests that check them: tests/integration/configs/example-configs.test.ts and external-templates.test.ts.
import path from 'node:path';
import { loopConfigSchema } from '../../configs/schema';
import { recipeDefinition } from '../../activities/recipes/registry';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';
import { CONFIGS } from './config';

/** The metric each recipe leads with (its seed's headline number), to find in the printed table. */
export const headline = (recipe: string) => new RegExp(`^${recipeDefinition(recipe).headlineMetric}\\s`, 'm');

/** Every recipe the schema knows: the list lives there once. */
export const RECIPES = loopConfigSchema.shape.recipe.options.map((o) => o.shape.name.value);
export const exampleConfig = (recipe: string, kind: 'dry-run' | 'external') => path.join(CONFIGS, `${recipe}.${kind}.yaml`);
/** A path as a config header spells it: relative to the project. */
export const rel = (f: string) => path.relative(PROJECT_ROOT, f);
