// Old configs in the current shape, in one place. A run hands each activity the config it started with, as its
// workflow history recorded it, so a worker of today reads configs that earlier code wrote. Every activity input's
// config passes through upgradeConfig (activities/index.ts) and every config file through upgradeRaw (load.ts), so
// no code below reads a field the schema requires and finds it missing.
//
// How the format changes: a field whose absence means its schema default needs nothing here (re-parsing through
// the schema fills it). A field whose absence in older configs meant something else than its default, or a renamed
// or removed field, raises CONFIG_VERSION (schema.ts) and adds the step from the version before it to STEPS.
import type { LoopConfig } from '../contracts/config';
import { RECIPES } from '../activities/recipes/registry';
import { CONFIG_VERSION, loopConfigSchema } from './schema';

type Raw = Record<string, unknown>;
type Step = (config: Raw) => Raw;

const section = (o: unknown): Raw => (o && typeof o === 'object' && !Array.isArray(o) ? (o as Raw) : {});

/** STEPS[v] turns a config of version v into version v + 1 (the schema's defaults then fill the rest). */
const STEPS: readonly Step[] = [
  // 0, configs from before versions: fields came with defaults other than what their absence did before; each recipe
  // says how its own section then behaved (RecipeDefinition.fromUnversioned, in its folder).
  (c) => {
    const recipe = section(c.recipe);
    const upgrade = RECIPES.find((r) => r.name === recipe.name)?.fromUnversioned;
    return upgrade ? { ...c, recipe: upgrade(recipe) } : c;
  },
  // 1: generation.shardSize counted tasks (every sample of each: default 100); it counts conversations now
  // (activities/generation/plan-shards.ts). A recorded run keeps shards of about the size it had: the tasks times the
  // larger split's samples per task (the recipe's defaults where its section leaves them out).
  (c) => {
    const recipe = section(c.recipe);
    const parsed = RECIPES.find((r) => r.name === recipe.name)?.schema.safeParse(recipe);
    const samples = (k: 'evalSamples' | 'trainSamples') => {
      const n = parsed?.success ? (parsed.data as Raw)[k] : recipe[k];
      return typeof n === 'number' && n > 0 ? n : 1;
    };
    const perTask = Math.max(samples('evalSamples'), recipe.trainTasks ? samples('trainSamples') : 1);
    const generation = section(c.generation);
    const tasks = typeof generation.shardSize === 'number' ? generation.shardSize : 100;
    return { ...c, generation: { ...generation, shardSize: tasks * perTask } };
  },
];
if (STEPS.length !== CONFIG_VERSION)
  throw new Error(`internal: configs/upgrade.ts has ${STEPS.length} steps for version ${CONFIG_VERSION}`);

/** A config of a version this code does not know yet (a newer collab-loop wrote it). */
export class NewerConfigError extends Error {
  readonly detail: string;
  constructor(readonly version: number) {
    const detail = `is ${version}, newer than the ${CONFIG_VERSION} this collab-loop knows: use a collab-loop as new as the one that wrote it`;
    super(`configVersion ${detail}`);
    this.detail = detail;
    this.name = 'NewerConfigError';
  }
}

/**
 * `config` of any version up to CONFIG_VERSION in the current version's shape, not yet validated (the schema does
 * that). `absent`: the version a config without `configVersion` has — 0 for a recorded one, which earlier code
 * wrote; CONFIG_VERSION for a file a user writes today. A version that is not a whole number is left to the schema.
 */
export function upgradeRaw(config: Raw, absent: number): Raw {
  const v = config.configVersion ?? absent;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) return config;
  if (v > CONFIG_VERSION) throw new NewerConfigError(v);
  if (v === CONFIG_VERSION) return config;
  return { ...STEPS.slice(v).reduce((c, step) => step(c), config), configVersion: CONFIG_VERSION };
}

/** A config an earlier run recorded (version 0 when it has none), in the current shape with the schema's defaults. */
export function upgradeConfig(config: unknown): LoopConfig {
  const parsed = loopConfigSchema.safeParse(upgradeRaw(section(config), 0));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Error(`a recorded config does not upgrade to the current format: ${issue.path.join('.') || '(top level)'}: ${issue.message}`);
}
