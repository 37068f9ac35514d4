// Reads an experiment YAML, applies `--set key=value` overrides, validates it with the zod schema and resolves
// paths. Every problem becomes one ConfigError naming the file and the field path — never a stack trace.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { z } from 'zod';
import { recipeOf } from '../activities/recipes/runtime';
import { unknownFigureMetric } from '../activities/report/paper-config';
import { PromptFileError, readPromptFile } from '../activities/recipes/prompt-file';
import { kindsTraining, unsupportedMethod } from '../activities/training/adapters';
import { isOnlineMethod } from '../contracts/train-methods';
import { modelRoles, rolesOfKind } from '../activities/llm/roles';
import { CONFIG_VERSION, loopConfigSchema } from './schema';
import { NewerConfigError, upgradeRaw } from './upgrade';
import { refusedFixedField, refusedRebase } from './retry-changes';
import { knownKeys } from './schema-walk';
import { nearestName } from './nearest-name';
import { overrideOf } from './override-source';
import { missingPath, resolvePathFields } from './path-check';
import { yamlErrorAt } from '../activities/yaml-error';
import type { LoopConfig } from '../contracts/config';

export class ConfigError extends Error {
  constructor(
    /** The config file, or the `--set key=value` the problem comes from. */
    readonly file: string,
    readonly field: string | undefined,
    readonly detail: string,
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
  /** The `--set key=value` overrides applied, so later checks can name the one a problem comes from. */
  overrides?: string[];
}

/** A problem with a field an override set is that override's (`--set key=value`), not the file's. */
export function blameOverride(err: ConfigError, file: string, overrides: readonly string[], prefix = '--set'): ConfigError {
  const o = err.file === file ? overrideOf(err.field, overrides) : undefined;
  return o ? new ConfigError(`${prefix} ${withoutUrlPasswords(o)}`, err.field, err.detail) : err;
}

/** The override as the user typed it, but a password in a URL (`redis://:secret@host`, refused by the schema
 *  because the config enters workflow histories) is not printed back. */
const withoutUrlPasswords = (s: string) => s.replace(/(\/\/[^/@:\s]*:)[^@/\s]+@/g, '$1***@');

/** Parses `a.b.c=value`; the value is read as YAML so numbers and booleans keep their type. */
export function applyOverride(raw: Record<string, unknown>, assignment: string): void {
  const eq = assignment.indexOf('=');
  if (eq <= 0) throw new ConfigError(`--set ${assignment}`, undefined, 'must look like key.path=value');
  const keyPath = assignment.slice(0, eq).split('.');
  const value = parseYaml(assignment.slice(eq + 1));
  let node: Record<string, unknown> = raw;
  for (const key of keyPath.slice(0, -1)) {
    const next = node[key];
    if (next === undefined || next === null) node[key] = {};
    else if (typeof next !== 'object' || Array.isArray(next))
      throw new ConfigError(`--set ${assignment}`, keyPath.join('.'), `cannot descend into "${key}", which is not a mapping`);
    node = node[key] as Record<string, unknown>;
  }
  node[keyPath[keyPath.length - 1]] = value;
}

/** One schema problem as field and detail; an unknown field is named with the known one nearest to it. */
function formatIssue(issue: z.core.$ZodIssue, raw: unknown): { field: string; detail: string } {
  const at = (path: readonly PropertyKey[]) => (path.length ? path.map(String).join('.') : '(top level)');
  if (issue.code !== 'unrecognized_keys') return { field: at(issue.path), detail: issue.message };
  const known = knownKeys(loopConfigSchema, raw, issue.path);
  const named = (k: string) => {
    const near = nearestName(k, known);
    return near ? `"${k}" (did you mean "${near}"?)` : `"${k}"`;
  };
  if (issue.keys.length === 1) return { field: at([...issue.path, issue.keys[0]]), detail: `unknown field ${named(issue.keys[0])}` };
  return { field: at(issue.path), detail: `unknown fields ${issue.keys.map(named).join(', ')}` };
}

/** `raw` upgraded (upgrade.ts; `absent`: the version of a config that names none) and validated; else its first
 *  problem as a ConfigError (with how many more there are). */
function validated(raw: Record<string, unknown>, file: string, absent: number): LoopConfig {
  let current: Record<string, unknown>;
  try {
    current = upgradeRaw(raw, absent);
  } catch (err) {
    if (err instanceof NewerConfigError) throw new ConfigError(file, 'configVersion', err.detail);
    throw err;
  }
  const result = loopConfigSchema.safeParse(current);
  if (result.success) return result.data;
  const { field, detail } = formatIssue(result.error.issues[0], current);
  const more = result.error.issues.length > 1 ? ` (and ${result.error.issues.length - 1} more problem(s))` : '';
  throw new ConfigError(file, field, detail + more);
}

export function parseConfigText(text: string, file: string, overrides: string[] = []): LoopConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    if (!(err instanceof YAMLParseError)) throw err;
    const { line, message } = yamlErrorAt(text, err);
    throw new ConfigError(file, undefined, `not valid YAML${line ? ` (line ${line})` : ''}: ${message}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new ConfigError(file, undefined, 'must be a YAML mapping of fields (see configs/demo.yaml)');
  for (const o of overrides) applyOverride(raw as Record<string, unknown>, o);
  return validated(raw as Record<string, unknown>, file, CONFIG_VERSION);
}

/** Makes every path in the config absolute (relative paths are relative to the config file) and checks inputs exist. */
export function resolveConfigPaths(config: LoopConfig, file: string): LoopConfig {
  const base = path.dirname(path.resolve(file));
  const abs = (p: string) => (path.isAbsolute(p) ? p : path.resolve(base, p));
  const out: LoopConfig = structuredClone(config);
  out.stateDir = abs(config.stateDir);
  resolvePathFields(out, abs);
  recipeOf(out).resolvePaths?.(out.recipe, abs);
  // Files every run reads; checkpoints are checked where a run that reads them starts (cli/runs.ts preflight).
  const missing = missingPath(out, ['file']);
  if (missing) throw new ConfigError(file, missing.field, missing.detail);
  // Executables given as paths are relative to the config file too; bare names are looked up on PATH.
  const exe = (p: string) => (p.includes('/') ? abs(p) : p);
  if (out.trainer?.python) out.trainer.python = exe(out.trainer.python);
  if (out.trainer?.kind === 'verl' && out.trainer.grpo.recipePath) out.trainer.grpo.recipePath = abs(out.trainer.grpo.recipePath);
  if ((out.server.kind === 'transformers' || out.server.kind === 'vllm') && out.server.executable)
    out.server.executable = exe(out.server.executable);
  if (out.server.kind === 'simulator' && out.server.answerGate) out.server.answerGate = abs(out.server.answerGate);
  if (out.server.kind === 'vllm' && out.server.python) out.server.python = exe(out.server.python);
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
  const figureProblem = unknownFigureMetric(out.paper, recipeOf(out));
  if (figureProblem) throw new ConfigError(file, figureProblem.field, figureProblem.message);
  if (out.trainer && !out.recipe.trainTasks)
    throw new ConfigError(file, 'recipe.trainTasks', 'is required when a train stage is configured');
  const unsupported = out.trainer && out.trainer.kind !== 'command' ? unsupportedMethod(out.trainer.kind, out.trainer.method) : undefined;
  if (unsupported) throw new ConfigError(file, 'trainer.method', unsupported);
  if (out.trainer && isOnlineMethod(out.trainer.method)) checkOnlineRl(out, file);
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
  const method = out.trainer!.method;
  const recipe = recipeOf(out);
  if (!recipe.onlineRl)
    throw new ConfigError(file, 'trainer.method', `${method} needs a recipe with an online RL reward; ${recipe.name} has none`);
  const kinds = kindsTraining(method);
  if (!(kinds as string[]).includes(out.trainer!.kind))
    throw new ConfigError(file, 'trainer.method', `${method} runs on trainer.kind ${kinds.join(' or ')}, not ${out.trainer!.kind}`);
  const roles = modelRoles(out, recipe.roles(out.recipe), out.baseCheckpoint);
  const trained = rolesOfKind(roles, 'trained');
  if (trained.length !== 1)
    throw new ConfigError(file, 'models', `${method} trains one role; this config trains ${trained.join(', ') || 'none'}`);
  for (const [role, r] of Object.entries(roles))
    if (r.kind === 'frozen')
      throw new ConfigError(
        file,
        `models.${role}`,
        `must be kind: external with trainer.method ${method} (the reward service calls it while the trainer runs, when nothing is served)`,
      );
}

export function loadConfig(file: string, opts: { overrides?: string[]; name?: string } = {}): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, undefined, `cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const overrides = opts.overrides ?? [];
  let config: LoopConfig;
  try {
    config = resolveConfigPaths(parseConfigText(text, file, overrides), file);
  } catch (err) {
    throw err instanceof ConfigError ? blameOverride(err, file, overrides) : err;
  }
  const runName = opts.name ?? config.name ?? path.basename(file).replace(/\.ya?ml$/, '');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$/.test(runName))
    throw new ConfigError(file, 'name', `run name "${runName}" may hold only letters, digits, ".", "_" and "-"`);
  return { file, config, runName, overrides };
}

/** `retry --set`: applies overrides to a running iteration's (already resolved) config and validates the result;
 *  a field a running loop cannot take a new value for is refused with the reason (retry-changes.ts). */
export function applyOverridesToConfig(config: LoopConfig, overrides: string[], o: { trainedFrom?: string } = {}): LoopConfig {
  const where = 'retry --set';
  try {
    const raw = structuredClone(config) as unknown as Record<string, unknown>;
    for (const o of overrides) applyOverride(raw, o);
    const fixed = refusedFixedField(config, raw);
    if (fixed) throw new ConfigError(where, fixed.field, fixed.why);
    const data = validated(raw, where, 0); // a running loop's config, as its run recorded it
    const refused = refusedRebase(config, data, o);
    if (refused) throw new ConfigError(where, refused.field, refused.why);
    return resolveConfigPaths(data, where); // relative paths: relative to the working directory
  } catch (err) {
    throw err instanceof ConfigError ? blameOverride(err, where, overrides, where) : err;
  }
}
