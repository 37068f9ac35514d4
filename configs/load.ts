// Reads an experiment YAML, applies `--set key=value` overrides, validates it with the zod schema and resolves
// paths. Every problem becomes one ConfigError naming the file and the field path — never a stack trace.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { z } from 'zod';
import { recipeOf } from '../activities/recipes/runtime';
import { PromptFileError, readPromptFile } from '../activities/recipes/prompt-file';
import { unsupportedMethod } from '../activities/training/adapters';
import { modelRoles, rolesOfKind } from '../activities/llm/roles';
import { loopConfigSchema } from './schema';
import { refusedFixedField, refusedRebase } from './retry-changes';
import type { LoopConfig } from '../contracts/config';

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly field: string | undefined,
    detail: string,
  ) {
    super(field ? `${file}: ${field}: ${detail}` : `${file}: ${detail}`);
    this.name = 'ConfigError';
  }
}

/** A validated config plus where it came from. Paths inside are absolute. */
export interface LoadedConfig {
  file: string;
  config: LoopConfig;
  runName: string;
}

/** Parses `a.b.c=value`; the value is read as YAML so numbers and booleans keep their type. */
export function applyOverride(raw: Record<string, unknown>, assignment: string, file: string): void {
  const eq = assignment.indexOf('=');
  if (eq <= 0) throw new ConfigError(file, undefined, `--set "${assignment}" must look like key.path=value`);
  const keyPath = assignment.slice(0, eq).split('.');
  const value = parseYaml(assignment.slice(eq + 1));
  let node: Record<string, unknown> = raw;
  for (const key of keyPath.slice(0, -1)) {
    const next = node[key];
    if (next === undefined || next === null) node[key] = {};
    else if (typeof next !== 'object' || Array.isArray(next))
      throw new ConfigError(file, keyPath.join('.'), `--set cannot descend into "${key}", which is not a mapping`);
    node = node[key] as Record<string, unknown>;
  }
  node[keyPath[keyPath.length - 1]] = value;
}

function formatIssue(issue: z.core.$ZodIssue): { field: string; detail: string } {
  const field = issue.path.length ? issue.path.map(String).join('.') : '(top level)';
  let detail = issue.message;
  if (issue.code === 'unrecognized_keys') detail = `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  return { field, detail };
}

export function parseConfigText(text: string, file: string, overrides: string[] = []): LoopConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    const where = err instanceof YAMLParseError && err.linePos ? ` (line ${err.linePos[0].line})` : '';
    throw new ConfigError(file, undefined, `not valid YAML${where}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new ConfigError(file, undefined, 'must be a YAML mapping of fields (see configs/demo.yaml)');
  for (const o of overrides) applyOverride(raw as Record<string, unknown>, o, file);
  const result = loopConfigSchema.safeParse(raw);
  if (!result.success) {
    const { field, detail } = formatIssue(result.error.issues[0]);
    const more = result.error.issues.length > 1 ? ` (and ${result.error.issues.length - 1} more problem(s))` : '';
    throw new ConfigError(file, field, detail + more);
  }
  return result.data;
}

/** Makes every path in the config absolute (relative paths are relative to the config file) and checks inputs exist. */
export function resolveConfigPaths(config: LoopConfig, file: string): LoopConfig {
  const base = path.dirname(path.resolve(file));
  const abs = (p: string) => (path.isAbsolute(p) ? p : path.resolve(base, p));
  const out: LoopConfig = structuredClone(config);
  out.stateDir = abs(config.stateDir);
  out.baseCheckpoint = abs(config.baseCheckpoint);
  out.recipe.evalTasks = abs(config.recipe.evalTasks);
  if (config.recipe.trainTasks) out.recipe.trainTasks = abs(config.recipe.trainTasks);
  recipeOf(out).resolvePaths?.(out.recipe, abs);
  if (config.recipe.prompts) out.recipe.prompts = abs(config.recipe.prompts);
  const mustExist: Array<[string, string]> = [
    ['recipe.evalTasks', out.recipe.evalTasks],
    ...(out.recipe.trainTasks ? [['recipe.trainTasks', out.recipe.trainTasks] as [string, string]] : []),
    ...(out.recipe.prompts ? [['recipe.prompts', out.recipe.prompts] as [string, string]] : []),
  ];
  for (const [field, p] of mustExist) if (!existsSync(p)) throw new ConfigError(file, field, `file not found: ${p}`);
  // Executables given as paths are relative to the config file too; bare names are looked up on PATH.
  const exe = (p: string) => (p.includes('/') ? abs(p) : p);
  if (out.trainer?.python) out.trainer.python = exe(out.trainer.python);
  if (out.trainer?.kind === 'verl' && out.trainer.grpo.recipePath) out.trainer.grpo.recipePath = abs(out.trainer.grpo.recipePath);
  if ((out.server.kind === 'transformers' || out.server.kind === 'vllm') && out.server.executable)
    out.server.executable = exe(out.server.executable);
  for (const m of Object.values(out.models)) {
    if (m.kind === 'trained' && m.from) m.from = abs(m.from);
    if (m.kind === 'frozen' && m.checkpoint) m.checkpoint = abs(m.checkpoint);
  }
  if (out.tracking?.wandb?.dir) out.tracking.wandb.dir = abs(out.tracking.wandb.dir);
  if (out.tracking?.wandb?.python) out.tracking.wandb.python = exe(out.tracking.wandb.python);
  if (out.iterations > 1 && !out.trainer)
    throw new ConfigError(file, 'trainer', `is required when iterations > 1 (nothing would produce the next checkpoint)`);
  const roles = Object.keys(recipeOf(out).roles(out.recipe));
  for (const role of Object.keys(out.models))
    if (!roles.includes(role))
      throw new ConfigError(
        file,
        `models.${role}`,
        `recipe ${out.recipe.name} has no role "${role}" here (its roles: ${roles.join(', ')})`,
      );
  if (out.recipe.prompts) checkPromptFile(out, file);
  const recipeProblem = recipeOf(out).check?.(out.recipe, { trainerMethod: out.trainer?.method });
  if (recipeProblem) throw new ConfigError(file, recipeProblem.field, recipeProblem.message);
  if (out.trainer && !out.recipe.trainTasks)
    throw new ConfigError(file, 'recipe.trainTasks', 'is required when a train stage is configured');
  const unsupported = out.trainer && out.trainer.kind !== 'command' ? unsupportedMethod(out.trainer.kind, out.trainer.method) : undefined;
  if (unsupported) throw new ConfigError(file, 'trainer.method', unsupported);
  if (out.trainer?.method === 'grpo') checkOnlineRl(out, file);
  // A scorer (SWEET-RL's learned critic) is trained by the loop before the data is built: it must be a trained role.
  const resolved = modelRoles(out, recipeOf(out).roles(out.recipe), out.baseCheckpoint);
  for (const role of out.recipe.trainTasks ? (recipeOf(out).needs(out.recipe).scorers ?? []) : []) {
    if (!out.trainer)
      throw new ConfigError(
        file,
        'trainer',
        `is required to build training data with a ${role} the loop trains first (recipe.data.critic: learned); without a trainer use recipe.data.critic: judge`,
      );
    if (resolved[role]?.kind !== 'trained')
      throw new ConfigError(
        file,
        `models.${role}`,
        `must be kind: trained: the recipe trains ${role} each iteration before building its data (recipe.data.critic: learned); for a fixed ${role} use recipe.data.critic: judge`,
      );
  }
  return out;
}

/** A prompts file's problems are the prompts file's (named with the key); the dry-run simulator knows only the
 *  project's own texts, so it cannot play a run with other ones. */
function checkPromptFile(out: LoopConfig, file: string) {
  const prompts = out.recipe.prompts as string;
  try {
    readPromptFile(prompts, recipeOf(out).prompts, out.recipe.name);
  } catch (err) {
    if (err instanceof PromptFileError) throw new ConfigError(err.file, err.key || undefined, err.detail);
    throw err;
  }
  const simulated = out.server.kind === 'simulator' ? 'server.kind: simulator' : out.agents ? 'the agents: section' : undefined;
  if (simulated)
    throw new ConfigError(
      file,
      'recipe.prompts',
      `${simulated} plays a dry run with the project's own prompt texts only (it recognises requests by them); give a prompts file to a served or external model`,
    );
}

/** Online RL needs a recipe that serves it, a trainer that runs it, and every untrained role behind an endpoint of
 *  its own: the reward service calls them while the trainer holds the GPUs, when the loop serves nothing. */
function checkOnlineRl(out: LoopConfig, file: string) {
  const recipe = recipeOf(out);
  if (!recipe.onlineRl)
    throw new ConfigError(file, 'trainer.method', `grpo needs a recipe with an online RL reward; ${recipe.name} has none`);
  if (out.trainer?.kind !== 'verl')
    throw new ConfigError(file, 'trainer.method', `grpo runs on trainer.kind verl, not ${out.trainer?.kind}`);
  const roles = modelRoles(out, recipe.roles(out.recipe), out.baseCheckpoint);
  const trained = rolesOfKind(roles, 'trained');
  if (trained.length !== 1)
    throw new ConfigError(file, 'models', `grpo trains one role; this config trains ${trained.join(', ') || 'none'}`);
  for (const [role, r] of Object.entries(roles))
    if (r.kind === 'frozen')
      throw new ConfigError(
        file,
        `models.${role}`,
        'must be kind: external with trainer.method grpo (the reward service calls it while verl trains, when nothing is served)',
      );
}

export function loadConfig(file: string, opts: { overrides?: string[]; name?: string } = {}): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, undefined, `cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const config = resolveConfigPaths(parseConfigText(text, file, opts.overrides), file);
  const runName = opts.name ?? config.name ?? path.basename(file).replace(/\.ya?ml$/, '');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$/.test(runName))
    throw new ConfigError(file, 'name', `run name "${runName}" may hold only letters, digits, ".", "_" and "-"`);
  return { file, config, runName };
}

/** `retry --set`: applies overrides to a running iteration's (already resolved) config and validates the result;
 *  a field a running loop cannot take a new value for is refused with the reason (retry-changes.ts). */
export function applyOverridesToConfig(config: LoopConfig, overrides: string[], o: { trainedFrom?: string } = {}): LoopConfig {
  const where = 'retry --set';
  const raw = structuredClone(config) as unknown as Record<string, unknown>;
  for (const o of overrides) applyOverride(raw, o, where);
  const fixed = refusedFixedField(config, raw);
  if (fixed) throw new ConfigError(where, fixed.field, fixed.why);
  const result = loopConfigSchema.safeParse(raw);
  if (!result.success) {
    const { field, detail } = formatIssue(result.error.issues[0]);
    throw new ConfigError(where, field, detail);
  }
  const refused = refusedRebase(config, result.data, o);
  if (refused) throw new ConfigError(where, refused.field, refused.why);
  return resolveConfigPaths(result.data, path.join(process.cwd(), 'retry.yaml'));
}
